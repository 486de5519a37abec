import { z } from 'zod'
import { CREDENTIAL_PROVIDERS, isAllowedBaseUrl, isHttpUrl, type CredentialField, type CredentialProvider, type CredentialProviderKey } from './providers.js'

/** Longest value of any field (4 KiB of ASCII; the longest real API tokens are well under 1 KiB). */
export const MAX_FIELD_CHARS = 4096
// Values end up in HTTP headers; a CR or LF there would inject one.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse control characters in a header value
const NO_CONTROL = /^[^\x00-\x1f\x7f]*$/

function urlSchema(f: CredentialField): z.ZodType<string> {
  const base = z.string().trim().max(2048)
  // A provider's base URL: where it may connect is the service's check (the outbound guard, which resolves the host).
  if (f.guarded) return base.refine(isHttpUrl, 'Must be an http or https URL, without user, password or fragment')
  return base.refine(isAllowedBaseUrl, 'Must be an https URL, or http to localhost / 127.0.0.1 / [::1], without user or password')
}

function fieldSchema(f: CredentialField): z.ZodType<string | undefined> {
  const value =
    f.kind === 'url'
      ? urlSchema(f)
      : z
          .string()
          .trim()
          .min(1)
          .max(f.kind === 'secret' ? MAX_FIELD_CHARS : 256)
          .regex(NO_CONTROL, 'Must not contain control characters')
  const described = value.describe(f.kind === 'secret' ? `${f.description} Secret: stored encrypted, read back masked.` : f.description)
  return f.required ? described : described.optional()
}

// One shape per provider, told apart by `provider`: an unknown provider is reported at
// ['provider'], a missing or unknown field at ['fields', name], and the document lists each shape.
function variant(p: CredentialProvider) {
  return z.object({
    provider: z.literal(p.key as CredentialProviderKey).describe(p.name),
    fields: z.strictObject(Object.fromEntries(p.fields.map((f) => [f.name, fieldSchema(f)]))),
  })
}
type Variant = ReturnType<typeof variant>

export const CredentialUpsert = z.discriminatedUnion('provider', CREDENTIAL_PROVIDERS.map(variant) as [Variant, ...Variant[]]).meta({
  id: 'CredentialUpsert',
  description: "Stores the organization's credential for a provider, replacing the whole previous one (fields left out are removed).",
})

export const CredentialResponse = z
  .object({
    provider: z.string(),
    name: z.string().describe("The provider's display name."),
    fields: z
      .record(z.string(), z.string())
      .describe('The fields that are set. Secret fields are masked: "••••" and their last 4 characters, or "••••••••" when shorter than 12.'),
    secret_fields: z.array(z.string()).describe('Which of `fields` are secrets (shown masked).'),
    readable: z.boolean().describe('false: the stored secret cannot be decrypted (changed encryption key or altered data); store the credential again.'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'CredentialResponse' })

export const CredentialPath = z.object({
  provider: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,63}$/)
    .describe('Provider key, e.g. openai.'),
})

export type CredentialUpsertT = { provider: CredentialProviderKey; fields: Record<string, string | undefined> }
export type CredentialResponseT = z.output<typeof CredentialResponse>
