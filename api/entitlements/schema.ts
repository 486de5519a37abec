import { z } from 'zod'
import { FLAG_KEY_PATTERN, MAX_FLAG_DESCRIPTION_LENGTH, MAX_FLAG_KEY_LENGTH, PRODUCT_FLAG_KEYS, PRODUCT_FLAGS } from './flags.js'
import { LIMIT_KEYS, type LimitKey } from './plans.js'

const FLAG_KEY_RULE = `1-${MAX_FLAG_KEY_LENGTH} characters: lower-case letters, digits, _ . or -, starting with a letter`
const productFlags = PRODUCT_FLAG_KEYS.map((k) => `${k} (${PRODUCT_FLAGS[k].description})`).join('; ')

export const FlagKey = z
  .string()
  .max(MAX_FLAG_KEY_LENGTH, `At most ${MAX_FLAG_KEY_LENGTH} characters`)
  .regex(FLAG_KEY_PATTERN, FLAG_KEY_RULE)
  .describe(`The flag's key, ${FLAG_KEY_RULE}. Keys the product reads: ${productFlags}. Any other key is the organization's own.`)

const Limits = z
  .object(Object.fromEntries(LIMIT_KEYS.map((k) => [k, z.number().int().nullable()])) as Record<LimitKey, z.ZodNullable<z.ZodNumber>>)
  .describe(
    'null means unlimited. live_calls: simultaneous web and phone calls; monthly_minutes: minutes of voice calls per calendar month (UTC); ' +
      'members counts pending invitations too; knowledge_base_bytes: the size of the documents as sent.',
  )

export const PlanResponse = z
  .object({
    key: z.string(),
    name: z.string(),
    description: z.string(),
    default: z.boolean().describe('Organizations the operator has not put on a plan are on this one.'),
    limits: Limits,
    features: z.record(z.string(), z.boolean()).describe('Product features the plan includes (keys as the product flags).'),
  })
  .meta({ id: 'PlanResponse' })

const Standing = z.object({
  limit: z.number().int().nullable().describe('null: unlimited'),
  used: z.number().int(),
  remaining: z.number().int().nullable().describe('null: unlimited'),
})

const FeatureState = z.object({
  plan: z.boolean().describe('The plan includes it.'),
  flag: z.boolean().describe("The organization's flag (its default when never set)."),
  enabled: z.boolean().describe('Both: the feature works.'),
})

export const EntitlementsResponse = z
  .object({
    organization_id: z.uuid(),
    plan: PlanResponse,
    period: z.object({ start: z.iso.datetime(), end: z.iso.datetime() }).describe('The calendar month (UTC) monthly_minutes counts.'),
    limits: z
      .object(Object.fromEntries(LIMIT_KEYS.map((k) => [k, Standing])) as Record<LimitKey, typeof Standing>)
      .describe(
        "Each limit with the organization's usage now. live_calls.limit is the cap in force: the stricter of the plan's and the server's (OZAN_MAX_LIVE_CALLS_PER_ORG).",
      ),
    features: z.record(z.string(), FeatureState),
  })
  .meta({ id: 'EntitlementsResponse', description: "The organization's plan, its effective limits, and what it uses of each now." })

export const FlagUpsert = z
  .object({
    key: FlagKey,
    enabled: z.boolean(),
    description: z.string().trim().max(MAX_FLAG_DESCRIPTION_LENGTH).nullable().optional().describe('Left out: kept as it is; null clears it.'),
  })
  .meta({ id: 'FlagUpsert' })

export const FlagToggle = z
  .object({
    enabled: z.boolean().optional().describe('The value to set; left out, the flag flips.'),
  })
  .meta({ id: 'FlagToggle' })

export const FlagResponse = z
  .object({
    key: z.string(),
    enabled: z.boolean(),
    description: z.string().nullable(),
    product: z.boolean().describe('The product reads this flag (see the key list); false: a key of the organization’s own.'),
    updated_at: z.iso.datetime(),
    updated_by: z.string().nullable().describe('The user who last set it.'),
  })
  .meta({ id: 'FlagResponse' })

export const FlagsResponse = z.record(z.string(), z.boolean()).describe('Every product flag (its value or its default) and every flag the organization set.')

export const FlagPath = z.object({ key: FlagKey })

export type PlanResponseT = z.output<typeof PlanResponse>
export type EntitlementsResponseT = z.output<typeof EntitlementsResponse>
export type FlagUpsertT = z.output<typeof FlagUpsert>
export type FlagToggleT = z.output<typeof FlagToggle>
export type FlagResponseT = z.output<typeof FlagResponse>
