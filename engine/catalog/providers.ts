/**
 * The static provider catalog: what each stage (speech-to-text, LLM, text-to-speech) can use,
 * known offline. Agent configs are validated against it (engine/graph-runtime/config.ts), and it
 * lists what the provider adapters under engine/pipeline/providers implement, so it stands below
 * both. `models`/`voices` null means open-ended (any name the provider accepts, e.g. models of an
 * OpenAI-compatible server).
 */
export type ServiceType = 'stt' | 'llm' | 'tts'

export interface ProviderEntry {
  key: string
  name: string
  service_type: ServiceType
  models: string[] | null
  voices: string[] | null
  languages: string[]
  requires_credential: boolean
  default_model: string | null
  default_voice: string | null
  /**
   * The voices are whatever this machine has installed (espeak-ng ships some 130 and a distribution
   * may add more), so `voices` names the common ones only. A config is checked against the
   * installed list when it is saved (api/workflows/voice-check.ts), not against `voices`.
   */
  installed_voices?: true
}

export const PROVIDERS: readonly ProviderEntry[] = [
  {
    key: 'deepgram',
    name: 'Deepgram',
    service_type: 'stt',
    models: ['nova-3', 'nova-2', 'nova-2-phonecall', 'enhanced', 'base'],
    voices: null,
    languages: ['en', 'en-US', 'en-GB', 'tr', 'de', 'fr', 'es', 'multi'],
    requires_credential: true,
    default_model: 'nova-3',
    default_voice: null,
  },
  {
    key: 'openai',
    name: 'OpenAI-compatible transcription',
    service_type: 'stt',
    models: null,
    voices: null,
    languages: ['en', 'tr', 'de', 'fr', 'es'],
    requires_credential: true,
    default_model: 'gpt-4o-mini-transcribe',
    default_voice: null,
  },
  {
    key: 'openai',
    name: 'OpenAI-compatible chat completions',
    service_type: 'llm',
    models: null,
    voices: null,
    languages: [],
    requires_credential: true,
    default_model: 'gpt-4o-mini',
    default_voice: null,
  },
  {
    key: 'espeak',
    name: 'espeak-ng (local, no key)',
    service_type: 'tts',
    models: null,
    voices: ['en-us', 'en-gb', 'tr', 'de', 'fr', 'es'],
    languages: ['en', 'tr', 'de', 'fr', 'es'],
    requires_credential: false,
    default_model: null,
    default_voice: 'en-us',
    installed_voices: true,
  },
  {
    key: 'deepgram',
    name: 'Deepgram Aura',
    service_type: 'tts',
    models: null,
    voices: ['aura-2-thalia-en', 'aura-2-andromeda-en', 'aura-2-apollo-en', 'aura-2-arcas-en', 'aura-asteria-en', 'aura-luna-en', 'aura-orion-en'],
    languages: ['en'],
    requires_credential: true,
    default_model: null,
    default_voice: 'aura-2-thalia-en',
  },
  {
    key: 'openai',
    name: 'OpenAI-compatible speech',
    service_type: 'tts',
    models: ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts'],
    voices: ['alloy', 'ash', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer'],
    languages: ['en', 'tr', 'de', 'fr', 'es'],
    requires_credential: true,
    default_model: 'gpt-4o-mini-tts',
    default_voice: 'alloy',
  },
]

export function findProvider(serviceType: ServiceType, key: string): ProviderEntry | undefined {
  return PROVIDERS.find((p) => p.service_type === serviceType && p.key === key)
}
