/**
 * The `volume` event's levels: the RMS of each window of audio (100 ms by default, so about ten a
 * second) on a 60 dB scale, 0 at −60 dBFS and below, 1 at 0 dBFS. A log scale because that is how
 * loudness is heard: speech sits around 0.4–0.8, where a linear RMS would hover near 0.05.
 */

export const LEVEL_FLOOR_DB = -60
export const LEVEL_WINDOW_MS = 100

export function levelFromRms(rms: number): number {
  if (!(rms > 0)) return 0
  const db = 20 * Math.log10(rms)
  return Math.min(1, Math.max(0, (db - LEVEL_FLOOR_DB) / -LEVEL_FLOOR_DB))
}

export class LevelMeter {
  private sumSquares = 0
  private count = 0

  constructor(readonly windowSamples: number) {
    if (!(Number.isInteger(windowSamples) && windowSamples > 0)) throw new RangeError(`windowSamples must be a positive integer, got ${windowSamples}`)
  }

  /** Adds samples; returns the level of the window they completed, or null while it is still open. */
  push(samples: Float32Array, count = samples.length): number | null {
    let level: number | null = null
    for (let i = 0; i < count; i++) {
      const v = samples[i]!
      this.sumSquares += v * v
      if (++this.count === this.windowSamples) {
        level = levelFromRms(Math.sqrt(this.sumSquares / this.count))
        this.sumSquares = 0
        this.count = 0
      }
    }
    return level
  }
}
