/**
 * The credential catalog: which fields each provider's credential holds. The request schema, the
 * masking of reads and the encryption split (secret fields sealed, plain fields stored as they
 * are) all follow it, and the integrations catalog names fields from it.
 */

/** `secret`: sealed at rest and masked on read. `url`: an endpoint (see isAllowedBaseUrl). */
export type CredentialFieldKind = 'secret' | 'url' | 'text'

export interface CredentialField {
  name: string
  kind: CredentialFieldKind
  required: boolean
  description: string
  /**
   * A provider's base URL (LLM, speech): checked by the outbound guard when stored (service.ts)
   * and on every connection. Integration base URLs are checked on every request instead
   * (api/security/outbound-request.ts).
   */
  guarded?: boolean
}

export interface CredentialProvider {
  key: string
  name: string
  fields: readonly CredentialField[]
}

const secret = (name: string, description: string): CredentialField => ({ name, kind: 'secret', required: true, description })
const baseUrl = (what: string): CredentialField => ({
  name: 'base_url',
  kind: 'url',
  required: false,
  description: `${what}. https, or http to a loopback address (a server on this machine).`,
})
const providerBaseUrl = (what: string): CredentialField => ({
  name: 'base_url',
  kind: 'url',
  required: false,
  guarded: true,
  description:
    `${what}. https, or http to an address inside OZAN_ALLOW_PRIVATE_CIDRS. Refused (422 destination_refused) when its host is, or resolves to, ` +
    "a loopback, private, link-local, metadata or other special-purpose address, or this server's own, unless the operator allows its range.",
})

export const CREDENTIAL_PROVIDERS = [
  {
    key: 'openai',
    name: 'OpenAI or an OpenAI-compatible server',
    fields: [
      secret('api_key', 'API key, sent as a bearer token.'),
      providerBaseUrl('API base URL, e.g. https://api.openai.com/v1 or an Ollama, vLLM or llama.cpp server'),
      { name: 'organization', kind: 'text', required: false, description: 'OpenAI organization id (OpenAI-Organization header).' },
    ],
  },
  {
    key: 'deepgram',
    name: 'Deepgram',
    fields: [secret('api_key', 'Deepgram API key.'), providerBaseUrl('API base URL (default https://api.deepgram.com)')],
  },
  {
    key: 'slack',
    name: 'Slack',
    fields: [secret('bot_token', 'Bot user OAuth token (xoxb-…).'), baseUrl('Web API base URL (default https://slack.com/api)')],
  },
  {
    key: 'calcom',
    name: 'Cal.com',
    fields: [secret('api_key', 'Cal.com API key.'), baseUrl('API base URL of a self-hosted Cal.com (default https://api.cal.com)')],
  },
  {
    key: 'hubspot',
    name: 'HubSpot',
    fields: [secret('access_token', 'Private app access token.'), baseUrl('API base URL (default https://api.hubapi.com)')],
  },
] as const satisfies readonly CredentialProvider[]

export type CredentialProviderKey = (typeof CREDENTIAL_PROVIDERS)[number]['key']
export const CREDENTIAL_PROVIDER_KEYS = CREDENTIAL_PROVIDERS.map((p) => p.key) as [CredentialProviderKey, ...CredentialProviderKey[]]

export function credentialProvider(key: string): CredentialProvider | undefined {
  return CREDENTIAL_PROVIDERS.find((p) => p.key === key)
}

export const isSecretField = (provider: CredentialProvider, name: string): boolean => provider.fields.some((f) => f.name === name && f.kind === 'secret')

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

/**
 * The shape of a base URL: http or https, with no user:password part (that would be a secret in a
 * plain field) and no fragment. Where it may connect is the outbound guard's decision.
 */
export function isHttpUrl(value: string): boolean {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return false
  }
  return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.hash
}

/**
 * Integration base URLs: https anywhere, plain http only to this machine. Whether a host may be
 * reached at all is the outbound guard's decision on each request (outbound-request.ts).
 */
export function isAllowedBaseUrl(value: string): boolean {
  return isHttpUrl(value) && (value.startsWith('https:') || LOOPBACK.test(new URL(value).hostname))
}
