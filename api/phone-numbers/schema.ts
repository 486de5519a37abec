import { z } from 'zod'

/** Numbers per environment. */
export const MAX_PHONE_NUMBERS = 1000

// E.164: a + and at most 15 digits, the first not 0. Spaces, dashes, dots and parentheses people
// write numbers with are taken out first ("+1 (555) 010-0000" is +15550100000).
const E164 = /^\+[1-9][0-9]{1,14}$/
export const PhoneNumberValue = z
  .string()
  .max(40)
  .transform((v) => v.replace(/[ \-.()]/g, ''))
  .pipe(z.string().regex(E164, 'Must be an E.164 number: + then the country code and number, at most 15 digits'))
  .describe('E.164, e.g. +905551234567 (spaces, dashes, dots and parentheses are removed).')

export const PhoneNumberCreate = z
  .object({
    number: PhoneNumberValue,
    label: z.string().trim().max(100).nullable().default(null),
    trunk_id: z.uuid().describe('The SIP trunk (of the same environment) its calls arrive on and leave through.'),
    workflow_uuid: z
      .uuid()
      .nullable()
      .default(null)
      .describe('The agent answering its inbound calls: its newest published version runs. null: inbound calls are refused (480).'),
  })
  .meta({ id: 'PhoneNumberCreate' })

export const PhoneNumberUpdate = z
  .object({
    label: z.string().trim().max(100).nullable().optional(),
    trunk_id: z.uuid().optional(),
    workflow_uuid: z.uuid().nullable().optional(),
  })
  .meta({ id: 'PhoneNumberUpdate', description: 'Fields left out stay as they are. The number itself cannot change: delete it and add the new one.' })

export const PhoneNumberResponse = z
  .object({
    id: z.uuid(),
    number: z.string(),
    label: z.string().nullable(),
    trunk_id: z.uuid(),
    workflow_uuid: z.uuid().nullable(),
    answering_version: z
      .number()
      .int()
      .nullable()
      .describe('The published version that would answer a call now; null when no agent is set or it has no published version.'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'PhoneNumberResponse' })

export const PhoneNumberPath = z.object({ phone_number_id: z.uuid() })

export type PhoneNumberCreateT = z.output<typeof PhoneNumberCreate>
export type PhoneNumberUpdateT = z.output<typeof PhoneNumberUpdate>
export type PhoneNumberResponseT = z.output<typeof PhoneNumberResponse>
