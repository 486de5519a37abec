export { SttError, type SttErrorCode, type SttEvent, type SttOpenOptions, type SttProvider, type SttStream, type SttTranscript } from './types.js'
export { sttEventChannel, DEFAULT_EVENT_CAPACITY } from './event-queue.js'
export { DeepgramLiveStt, DEFAULT_DEEPGRAM_LIVE_OPTIONS, type DeepgramLiveOptions } from './deepgram-live.js'
export { OpenAiTranscribeStt, DEFAULT_OPENAI_TRANSCRIBE_OPTIONS, type OpenAiTranscribeOptions } from './openai-transcribe.js'
