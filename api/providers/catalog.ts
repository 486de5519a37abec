/**
 * The providers the API lists: the engine's static catalog (engine/catalog, the one agent configs
 * are validated against), with what the API adds to each entry: the credential it runs on, whether
 * it streams, and where its live resources come from. One table, so GET /providers, the resources
 * fallback and config validation can never disagree about what exists.
 */
import { PROVIDERS, type ProviderEntry, type ServiceType } from '../../engine/catalog/index.js'

export type { ServiceType } from '../../engine/catalog/index.js'
export const SERVICE_TYPES: readonly ServiceType[] = ['stt', 'llm', 'tts']

/** Where a provider's live voices and models are listed. */
export type LiveSource =
  /** OpenAI-compatible `GET {base_url}/models` (Bearer key). */
  | 'openai_models'
  /** Deepgram `GET {base_url}/v1/models` (Token key): speech models and Aura voices. */
  | 'deepgram_models'
  /** `espeak-ng --voices` on this machine. */
  | 'espeak_voices'

export interface CatalogProvider extends ProviderEntry {
  /** The stored credential it runs on (PUT /api/v1/credentials `provider`); null: none needed. */
  credential_provider: 'openai' | 'deepgram' | null
  /** Results or audio arrive while the work is still going (a live socket, SSE, chunked audio). */
  streaming: boolean
  live_source: LiveSource
}

/** What the API adds, keyed `service_type:key`. A catalog entry without one fails at start (below). */
const EXTRAS: Record<string, Pick<CatalogProvider, 'credential_provider' | 'streaming' | 'live_source'>> = {
  // Deepgram live: interim and final results over a WebSocket while audio flows.
  'stt:deepgram': { credential_provider: 'deepgram', streaming: true, live_source: 'deepgram_models' },
  // One request per finished utterance (POST /audio/transcriptions): no results while speaking.
  'stt:openai': { credential_provider: 'openai', streaming: false, live_source: 'openai_models' },
  // Chat completions over SSE.
  'llm:openai': { credential_provider: 'openai', streaming: true, live_source: 'openai_models' },
  // espeak-ng writes audio to stdout as it synthesizes.
  'tts:espeak': { credential_provider: null, streaming: true, live_source: 'espeak_voices' },
  // Aura's REST speak endpoint streams the audio body.
  'tts:deepgram': { credential_provider: 'deepgram', streaming: true, live_source: 'deepgram_models' },
  // /audio/speech with response_format pcm streams the body.
  'tts:openai': { credential_provider: 'openai', streaming: true, live_source: 'openai_models' },
}

function withExtras(entry: ProviderEntry): CatalogProvider {
  const extras = EXTRAS[`${entry.service_type}:${entry.key}`]
  if (!extras) throw new Error(`api/providers/catalog.ts: no credential, streaming and live source for ${entry.service_type} provider "${entry.key}"`)
  return { ...entry, ...extras }
}

/** Every provider, in the engine catalog's order (speech-to-text, LLM, text-to-speech). */
export const CATALOG: readonly CatalogProvider[] = PROVIDERS.map(withExtras)

export function catalogProvider(serviceType: string, key: string): CatalogProvider | undefined {
  return CATALOG.find((p) => p.service_type === serviceType && p.key === key)
}
