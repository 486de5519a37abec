/**
 * Puts instants of the caller's audio (ms since its first sample) on the wall clock, by when the
 * latest frame arrived: a caller streams in real time, so audio that ended `d` ms before the
 * latest frame's end was spoken `d` ms before that frame arrived. Results computed later on the
 * audio (a VAD window, which completes only with the frame holding its last sample, judged after
 * the model ran) are placed by this, not by the instant the result came back.
 */
export class CallerAudioClock {
  private audioMs = 0
  private arrivedAt = 0

  /** Frames come at `sampleRate`. */
  constructor(private readonly sampleRate = 16_000) {}

  /** Every frame, as it arrives. */
  frame(samples: number, arrivedAt: number): void {
    this.audioMs += (samples * 1000) / this.sampleRate
    this.arrivedAt = arrivedAt
  }

  /** The wall-clock instant of audio time `audioMs`. */
  wallAt(audioMs: number): number {
    return this.arrivedAt - (this.audioMs - audioMs)
  }
}
