/** What the main thread and the two AudioWorklet processors say to each other through their ports. */

export const CAPTURE_PROCESSOR = 'ozan-capture'
export const PLAYBACK_PROCESSOR = 'ozan-playback'

/** Capture → main: a 20 ms PCM16LE frame at 16 kHz (transferred), or the microphone's level. */
export type CaptureMessage = { type: 'frame'; pcm: ArrayBuffer } | { type: 'level'; level: number }

/** Main → playback: agent audio as received (PCM16LE at 16 kHz, transferred), or drop everything buffered. */
export type PlaybackCommand = { type: 'audio'; pcm: ArrayBuffer } | { type: 'clear' }

/** Playback → main, once per level window: what the caller heard and the buffer's counters. */
export interface PlaybackReport {
  type: 'report'
  level: number
  underruns: number
  droppedSamples: number
  bufferedSamples: number
  playedSamples: number
}
