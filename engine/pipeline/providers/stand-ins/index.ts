/**
 * Local servers that speak the real wire protocols of the providers in this folder's parent
 * (OpenAI chat, embeddings, speech and transcription; Deepgram live and Aura speech), for tests and
 * benches (and their model listings, model-listing.ts): the providers run their real SDK code paths without keys or network. README.md says
 * what each one answers, how it fails on demand and what it logs.
 */
export { latencySampler, latencyTarget, seededRandom, type LatencySpec } from './latency.js'
export {
  startOpenAiStandIn,
  type OpenAiStandIn,
  type OpenAiStandInOptions,
  type OpenAiFailure,
  type OpenAiRequest,
  type OpenAiOutcome,
  type OpenAiDelays,
  type ScriptedReply,
  type ScriptedToolCall,
  type StandInMessage,
  type StandInTool,
} from './openai-server.js'
export {
  startSpeechStandIn,
  toneMs,
  DEFAULT_SPEECH_KEYS,
  type SpeechStandIn,
  type SpeechStandInOptions,
  type SpeechPace,
  type SpeechFailure,
  type SpeechRequest,
  type SpeechOutcome,
} from './speech-server.js'
export { startDeepgramStandIn } from './deepgram-server.js'
export type {
  DeepgramStandIn,
  DeepgramStandInOptions,
  DeepgramFailure,
  DeepgramSession,
  DeepgramOutcome,
  ScriptedUtterance,
  UtteranceLog,
} from './deepgram-types.js'
export { speechSpanMs, DEFAULT_SPEECH_RMS } from './deepgram-speech.js'
export { DEFAULT_DEEPGRAM_MODELS, type DeepgramModelRecord, type ListingFailure, type ListingRequest } from './model-listing.js'
export {
  startTranscriptionStandIn,
  type TranscriptionStandIn,
  type TranscriptionStandInOptions,
  type TranscriptionFailure,
  type TranscriptionRequest,
  type ScriptedTranscript,
} from './transcription-server.js'
