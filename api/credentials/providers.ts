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

export const CREDENTIAL_PROVIDERS = [
  {
    key: 'openai',
    name: 'OpenAI or an OpenAI-compatible server',
    fields: [
      secret('api_key', 'API key, sent as a bearer token.'),
      baseUrl('API base URL, e.g. https://api.openai.com/v1 or a local Ollama, vLLM or llama.cpp server'),
      { name: 'organization', kind: 'text', required: false, description: 'OpenAI organization id (OpenAI-Organization header).' },
    ],
  },
  {
    key: 'deepgram',
    name: 'Deepgram',
    fields: [secret('api_key', 'Deepgram API key.'), baseUrl('API base URL (default https://api.deepgram.com)')],
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

export const isSecretField = (provider: CredentialProvider, name: string): boolean =>
  provider.fields.some((f) => f.name === name && f.kind === 'secret')

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

/**
 * Base URLs: https anywhere, plain http only to this machine (self-hosted OpenAI-compatible
 * servers listen locally). No user:password part, since that would be a secret in a plain field.
 * Whether a host may be reached at all (private ranges, metadata addresses) is the outbound
 * guard's decision when a request is made, not this check's.
 */
export function isAllowedBaseUrl(value: string): boolean {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return false
  }
  if (url.username || url.password || url.hash) return false
  if (url.protocol === 'https:') return true
  return url.protocol === 'http:' && LOOPBACK.test(url.hostname)
}
