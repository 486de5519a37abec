import { z } from 'zod'

/**
 * Path parameters are identifiers of the catalog: a well-formed name that names no provider (or no
 * service type) is 404 not_found, as an unknown id is anywhere else; only a malformed one is 422.
 */
export const ProviderPath = z.object({
  service_type: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/, 'Lower-case letters, digits, _ and - (at most 32)')
    .describe('stt, llm or tts; any other well-formed value is 404.'),
  key: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, 'Lower-case letters, digits, _ . and - (at most 64)')
    .describe('The provider key (deepgram, openai, espeak); see GET /api/v1/providers.'),
})

const ServiceTypeField = z.enum(['stt', 'llm', 'tts']).describe('stt: speech-to-text; llm: language model; tts: text-to-speech.')

export const ProviderResponse = z
  .object({
    service_type: ServiceTypeField,
    key: z.string().describe('With service_type, names the provider in an agent config (stt.provider, llm.provider, tts.provider).'),
    name: z.string(),
    credential_provider: z
      .enum(['openai', 'deepgram'])
      .nullable()
      .describe('The credential it runs on (PUT /api/v1/credentials with this provider); null when it needs none.'),
    requires_credential: z.boolean(),
    organization_credential: z.boolean().describe("The caller's organization has stored a credential for it."),
    platform_credential: z.boolean().describe("The server's operator has configured one (used when the organization has none)."),
    capabilities: z.object({
      streaming: z.boolean().describe('Results or audio arrive while the work is still going (live socket, SSE, chunked audio).'),
      languages: z.array(z.string()).describe('Languages it is known to serve; empty for an LLM (whatever the model speaks).'),
      custom_models: z.boolean().describe('Any model name the provider accepts may be configured (an OpenAI-compatible server), not only listed ones.'),
      custom_voices: z.boolean().describe('Any voice name the provider accepts may be configured.'),
      live_resources: z.boolean().describe('GET …/resources can list its voices and models live (always true today).'),
    }),
    default_model: z.string().nullable(),
    default_voice: z.string().nullable(),
  })
  .meta({ id: 'ProviderResponse' })

export const ProviderResource = z
  .object({
    id: z.string().describe('What the agent config takes (stt.model, llm.model, tts.model or tts.voice).'),
    name: z.string(),
    languages: z.array(z.string()),
  })
  .meta({ id: 'ProviderResource' })

export const FALLBACK_REASONS = ['no_credential', 'credential_rejected', 'timeout', 'upstream_error', 'destination_refused', 'not_installed'] as const

export const ProviderResourcesResponse = z
  .object({
    service_type: ServiceTypeField,
    key: z.string(),
    source: z.enum(['live', 'static']).describe("live: from the provider's own listing (possibly cached briefly); static: the built-in catalog."),
    fallback_reason: z
      .enum(FALLBACK_REASONS)
      .nullable()
      .describe(
        'Why the static catalog was used: no credential to list with, the credential was refused (401/403), the listing timed out, failed or answered something unreadable, ' +
          'the base URL was refused by the outbound guard, or the local binary is missing. null when live.',
      ),
    credential: z
      .enum(['organization', 'platform'])
      .nullable()
      .describe(
        "Whose credential the listing used (or would have): the organization's stored one, else the platform's; null when none is needed or none exists.",
      ),
    fetched_at: z.iso.datetime().nullable().describe('When the live listing was fetched (it is cached briefly); null when static.'),
    models: z.array(ProviderResource),
    voices: z.array(ProviderResource),
  })
  .meta({ id: 'ProviderResourcesResponse' })

export type ProviderResponseT = z.output<typeof ProviderResponse>
export type ProviderResourceT = z.output<typeof ProviderResource>
export type ProviderResourcesResponseT = z.output<typeof ProviderResourcesResponse>
export type FallbackReason = (typeof FALLBACK_REASONS)[number]
