import type { Config, Logger } from '../../core/index.js'
import type { ProviderOrigin } from './provider-network.js'

/** Where an organization's OpenAI-compatible calls go, and with which key. */
export interface OpenAiAccess {
  apiKey: string
  baseURL: string
  /** The OpenAI organization header, when the stored credential names one. */
  organization: string | null
  /**
   * Who chose baseURL: 'organization' (its stored credential; connections go through the outbound
   * guard) or 'operator' (OZAN_OPENAI_BASE_URL, or OpenAI's own URL; trusted).
   */
  origin: ProviderOrigin
}

const OPENAI_BASE_URL = 'https://api.openai.com/v1'

/**
 * The one rule for LLM and embeddings calls: the organization's stored "openai" credential (with
 * its base URL), else the platform's OZAN_OPENAI_API_KEY / OZAN_OPENAI_BASE_URL, else none.
 * Resolved per use, so a changed credential applies at once. A stored credential that no longer
 * decrypts is logged and skipped, so the platform key still serves.
 */
export function openAiAccessFor(deps: {
  config: Pick<Config, 'openaiApiKey' | 'openaiBaseUrl'>
  credentials: { reveal(organizationId: string, provider: string): Readonly<Record<string, string>> | null }
  logger: Logger
}): (organizationId: string) => OpenAiAccess | undefined {
  const { config, credentials, logger } = deps
  return (organizationId) => {
    let stored: Readonly<Record<string, string>> | null = null
    try {
      stored = credentials.reveal(organizationId, 'openai')
    } catch (err) {
      logger.warn(
        { organization_id: organizationId, err: (err as Error).message },
        'stored openai credential cannot be decrypted; using the platform key if any',
      )
    }
    const apiKey = stored?.api_key ?? config.openaiApiKey
    if (!apiKey) return undefined
    // A stored key with no base_url goes to OpenAI itself, a fixed public URL: trusted.
    const origin: ProviderOrigin = stored?.base_url ? 'organization' : 'operator'
    const baseURL = stored ? (stored.base_url ?? OPENAI_BASE_URL) : config.openaiBaseUrl
    return { apiKey, baseURL, organization: stored?.organization ?? null, origin }
  }
}
