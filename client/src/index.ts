/**
 * @ozan/web: a voice call with an Ozan agent from a web page (docs/protocol.md, protocol v1).
 * The one public surface; the bundle (dist/ozan-web.js) is built from this file.
 */
export { WebCall, WEB_CALL_TIMEOUTS } from './web-call.js'
export { WebCallError } from './microphone.js'
export { CLOSE_CODES } from './close-codes.js'
export { DEFAULT_CALLER_AUDIO_QUEUE } from './caller-audio-queue.js'
export { DEFAULT_JITTER_BUFFER_MS } from './jitter-buffer.js'
export type {
  CallError,
  CallStatus,
  EndedEvent,
  MetricsEvent,
  TranscriptEvent,
  VolumeEvent,
  WebCallEvents,
  WebCallOptions,
  WebCallStats,
} from './types.js'
