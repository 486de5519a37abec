import type { AgentConfig } from '../../engine/graph-runtime/index.js'
import { DeepgramLiveStt, OpenAiTranscribeStt, type SttProvider } from '../../engine/pipeline/providers/stt/index.js'
import { DeepgramAuraTts, EspeakTts, OpenAiSpeechTts, type TtsProvider } from '../../engine/pipeline/providers/tts/index.js'
import type { DeepgramAccess } from '../credentials/deepgram-access.js'
import type { OpenAiAccess } from '../credentials/openai-access.js'
import type { ProviderConnections } from '../../engine/pipeline/providers/connections.js'
import { ApiError } from '../http/errors.js'

/** The recognizer and the voice of one voice turn. */
export interface VoiceProviders {
  stt: SttProvider
  tts: TtsProvider
  /** The language the recognizer is told (the agent's stt.language, else its language). */
  sttLanguage: string
  /** What synthesize() is given: the configured voice (else the provider's pick) and language. */
  voice: string | undefined
  ttsLanguage: string
}

/** The speech part of a call the engine runs (PreparedCall's stt, tts, voice and language). */
export function callSpeech(v: VoiceProviders): { stt: SttProvider; tts: TtsProvider; voice?: string; language: string } {
  return { stt: v.stt, tts: v.tts, ...(v.voice !== undefined && { voice: v.voice }), language: v.sttLanguage }
}

/** Resolves an organization's speech providers for an agent config; throws provider_not_configured. */
export type VoiceProvidersFor = (organizationId: string, config: AgentConfig) => VoiceProviders

export interface VoiceProviderDeps {
  /** The organization's OpenAI-compatible access (stored "openai" credential, else the platform's). */
  openAiAccess: (organizationId: string) => OpenAiAccess | undefined
  /** The organization's Deepgram access (stored "deepgram" credential, else the platform's). */
  deepgramAccess: (organizationId: string) => DeepgramAccess | undefined
  /** The guarded pool organizations' own base URLs connect through (api/credentials/provider-network.ts). */
  organizationConnections: ProviderConnections
  /**
   * The longest audio one turn carries. The Deepgram socket holds this much (plus a margin) while
   * it connects, so a whole upload pushed at once is never trimmed.
   */
  maxAudioMs: number
}

const notConfigured = (what: string, provider: string, fix: string) =>
  new ApiError('provider_not_configured', `The agent's ${what} provider is "${provider}", and ${fix}.`)

const OPENAI_FIX = 'no OpenAI key is available: store an "openai" credential (PUT /api/v1/credentials) or set OZAN_OPENAI_API_KEY'
const DEEPGRAM_FIX =
  'no Deepgram key is available: store a "deepgram" credential (PUT /api/v1/credentials: api_key, optional base_url) or set OZAN_DEEPGRAM_API_KEY'

/**
 * Chooses STT and TTS from the agent's config and the organization's credentials, resolved per
 * turn so a changed credential applies at once. Base URLs come from the stored credential, never
 * from the request; an organization's base URL was checked by the outbound guard when stored, and
 * its clients connect through the guarded pool, which checks again on every connection.
 * espeak needs no key; every other provider without its key is provider_not_configured (400),
 * saying which credential to store.
 */
export function voiceProvidersFor(deps: VoiceProviderDeps): VoiceProvidersFor {
  const deepgram = (organizationId: string, what: string): DeepgramAccess & { connections: ProviderConnections | undefined } => {
    const access = deps.deepgramAccess(organizationId)
    if (!access) throw notConfigured(what, 'deepgram', DEEPGRAM_FIX)
    return { ...access, connections: access.origin === 'organization' ? deps.organizationConnections : undefined }
  }
  const openai = (organizationId: string, what: string): OpenAiAccess & { connections: ProviderConnections | undefined } => {
    const access = deps.openAiAccess(organizationId)
    if (!access) throw notConfigured(what, 'openai', OPENAI_FIX)
    return { ...access, connections: access.origin === 'organization' ? deps.organizationConnections : undefined }
  }

  return (organizationId, config) => {
    const sttLanguage = config.stt.language ?? config.language
    let stt: SttProvider
    if (config.stt.provider === 'openai') {
      const a = openai(organizationId, 'speech-to-text')
      stt = new OpenAiTranscribeStt({
        apiKey: a.apiKey,
        baseURL: a.baseURL,
        ...(config.stt.model && { model: config.stt.model }),
        maxUtteranceMs: deps.maxAudioMs + 1000,
        ...(a.connections && { connections: a.connections }),
      })
    } else {
      const d = deepgram(organizationId, 'speech-to-text')
      // The live API is a WebSocket on the same host: https → wss, http (loopback) → ws.
      stt = new DeepgramLiveStt({
        apiKey: d.apiKey,
        baseUrl: d.baseUrl.replace(/^http/, 'ws'),
        ...(config.stt.model && { model: config.stt.model }),
        maxQueuedMs: deps.maxAudioMs + 5000,
        ...(d.connections && { connections: d.connections }),
      })
    }

    let tts: TtsProvider
    if (config.tts.provider === 'openai') {
      const a = openai(organizationId, 'text-to-speech')
      tts = new OpenAiSpeechTts({
        apiKey: a.apiKey,
        baseURL: a.baseURL,
        ...(config.tts.model && { model: config.tts.model }),
        ...(a.connections && { connections: a.connections }),
      })
    } else if (config.tts.provider === 'deepgram') {
      const d = deepgram(organizationId, 'text-to-speech')
      tts = new DeepgramAuraTts({ apiKey: d.apiKey, baseUrl: d.baseUrl, ...(d.connections && { connections: d.connections }) })
    } else {
      // speed 0.5–2 around espeak-ng's 175 words per minute (its accepted range is 80–450).
      tts = new EspeakTts({ rateWpm: Math.min(450, Math.max(80, Math.round(175 * config.tts.speed))) })
    }
    return { stt, tts, sttLanguage, voice: config.tts.voice, ttsLanguage: config.language }
  }
}
