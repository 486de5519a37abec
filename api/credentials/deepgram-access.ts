import type { Config, Logger } from '../../core/index.js'
import type { ProviderOrigin } from './provider-network.js'

/** Where an organization's Deepgram requests (live STT, Aura TTS, model listing) go, and with which key. */
export interface DeepgramAccess {
  apiKey: string
  /** http(s) base of the REST API; the live socket is the same host over ws(s). No trailing slash. */
  baseUrl: string
  /**
   * Who chose baseUrl: 'organization' (its stored credential's base_url; connections go through
   * the outbound guard) or 'operator' (OZAN_DEEPGRAM_BASE_URL, or Deepgram's own URL; trusted).
   */
  origin: ProviderOrigin
  /** Whose key it is: the organization's stored "deepgram" credential or the platform's OZAN_DEEPGRAM_API_KEY. */
  credential: 'organization' | 'platform'
}

export const DEEPGRAM_BASE_URL = 'https://api.deepgram.com'

/**
 * The one rule for Deepgram, as for OpenAI (openai-access.ts): the organization's stored
 * "deepgram" credential (with its base URL), else the platform's OZAN_DEEPGRAM_API_KEY /
 * OZAN_DEEPGRAM_BASE_URL, else none. Resolved per use; a stored credential that no longer decrypts
 * is logged and skipped, so the platform key still serves.
 */
export function deepgramAccessFor(deps: {
  config: Pick<Config, 'deepgramApiKey' | 'deepgramBaseUrl'>
  credentials: { reveal(organizationId: string, provider: string): Readonly<Record<string, string>> | null }
  logger: Logger
}): (organizationId: string) => DeepgramAccess | undefined {
  const { config, credentials, logger } = deps
  return (organizationId) => {
    let stored: Readonly<Record<string, string>> | null = null
    try {
      stored = credentials.reveal(organizationId, 'deepgram')
    } catch (err) {
      logger.warn(
        { organization_id: organizationId, err: (err as Error).message },
        'stored deepgram credential cannot be decrypted; using the platform key if any',
      )
    }
    const trim = (url: string) => url.replace(/\/+$/, '')
    if (stored?.api_key) {
      return {
        apiKey: stored.api_key,
        baseUrl: trim(stored.base_url ?? DEEPGRAM_BASE_URL),
        // A stored key with no base_url goes to Deepgram itself, a fixed public URL: trusted.
        origin: stored.base_url ? 'organization' : 'operator',
        credential: 'organization',
      }
    }
    if (!config.deepgramApiKey) return undefined
    return { apiKey: config.deepgramApiKey, baseUrl: trim(config.deepgramBaseUrl), origin: 'operator', credential: 'platform' }
  }
}
