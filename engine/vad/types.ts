import { SAMPLE_RATE } from '../audio/format.js'

/** Silero v5 is trained on windows of exactly 512 samples at 16 kHz; the energy VAD uses the same. */
export const VAD_WINDOW_SAMPLES = 512
export const VAD_WINDOW_MS = (VAD_WINDOW_SAMPLES * 1000) / SAMPLE_RATE

/** One audio stream's detector state. Calls on one stream must not overlap (they are queued). */
export interface VadStream {
  /** Probability 0..1 that the 512-sample window holds speech. */
  process(window: Int16Array): Promise<number>
  /** Forget everything heard, as for a new stream. */
  reset(): void
}

/** What is loaded once per process and shared by every session. */
export interface VadModel {
  readonly kind: 'silero' | 'energy'
  stream(): VadStream
  release(): Promise<void>
}

export function assertWindow(window: Int16Array): void {
  if (window.length !== VAD_WINDOW_SAMPLES) {
    throw new RangeError(`a VAD window is ${VAD_WINDOW_SAMPLES} samples, got ${window.length}`)
  }
}
