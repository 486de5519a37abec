import { z } from 'zod'
import { DEFAULT_PAGE_LIMITS, pageQuery } from '../http/paging.js'
import { SCOPES } from '../rbac/index.js'

export const ApiKeyCreate = z
  .object({
    name: z.string().trim().min(1).max(100),
    expires_in_days: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .optional()
      .describe('The key stops working this many days after creation; omitted: never expires. Cannot change later.'),
    scopes: z
      .array(z.enum(SCOPES))
      .min(1)
      .max(SCOPES.length)
      .refine((s) => new Set(s).size === s.length, 'Scopes must not repeat')
      .optional()
      .describe("Omitted: the key acts with its creator's permissions as they are at request time. Cannot change later."),
  })
  .meta({ id: 'ApiKeyCreate' })

export const ApiKeyResponse = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string().describe('The start of the key, to recognise it; the key itself is never shown again.'),
    scopes: z.array(z.enum(SCOPES)).nullable().describe("null: inherits its creator's permissions"),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime().nullable(),
    last_used_at: z.iso.datetime().nullable().describe('Updated at most once a minute.'),
    created_by: z.object({ id: z.uuid(), email: z.string().nullable(), name: z.string().nullable() }),
  })
  .meta({ id: 'ApiKeyResponse' })

export const ApiKeyCreatedResponse = ApiKeyResponse.extend({
  key: z.string().describe('The secret key. Shown only in this response.'),
}).meta({ id: 'ApiKeyCreatedResponse' })

export const ApiKeyPath = z.object({ key_id: z.uuid() })
export const DEFAULT_API_KEY_PAGE_LIMITS = DEFAULT_PAGE_LIMITS
export const ApiKeyListQuery = z.object({ ...pageQuery(DEFAULT_API_KEY_PAGE_LIMITS) })

export type ApiKeyResponseT = z.output<typeof ApiKeyResponse>
export type ApiKeyCreatedResponseT = z.output<typeof ApiKeyCreatedResponse>
