import { SAMPLE_RATE, type SpeechRate } from '../audio/format.js'

/*
 * The VAD runs at the engine's 16 kHz and at a phone line's own 8 kHz (SpeechRate): Silero v5 has
 * an 8 kHz branch trained for telephone audio; upsampling a call to 16 kHz only to analyse it
 * costs a resampler and a model run ~1.6× as dear, and adds nothing the line did not carry.
 */

/** Every window is 32 ms: Silero v5 is trained on 512 samples at 16 kHz and 256 at 8 kHz. */
export const VAD_WINDOW_MS = 32
/** A window at the engine's rate (16 kHz). */
export const VAD_WINDOW_SAMPLES = (SAMPLE_RATE * VAD_WINDOW_MS) / 1000

export const vadWindowSamples = (rate: SpeechRate): number => (rate * VAD_WINDOW_MS) / 1000

/** One audio stream's detector state. Calls on one stream must not overlap (they are queued). */
export interface VadStream {
  readonly sampleRate: SpeechRate
  /**
   * Probability 0..1 that the 32 ms window holds speech. The window is read before process()
   * returns and nothing of it is kept: the caller refills the same array with the next window.
   */
  process(window: Int16Array): Promise<number>
  /** Forget everything heard, as for a new stream. */
  reset(): void
}

/** What is loaded once per process and shared by every session. */
export interface VadModel {
  readonly kind: 'silero' | 'energy'
  /** A stream of windows at `sampleRate` (default 16 kHz). */
  stream(sampleRate?: SpeechRate): VadStream
  release(): Promise<void>
}

export function assertWindow(window: Int16Array, rate: SpeechRate = SAMPLE_RATE): void {
  const samples = vadWindowSamples(rate)
  if (window.length !== samples) {
    throw new RangeError(`a VAD window at ${rate} Hz is ${samples} samples, got ${window.length}`)
  }
}
