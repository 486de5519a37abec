import type { SpeechRate } from '../audio/format.js'
import type { TimedWindow } from './detector.js'

/**
 * Places the VAD's speech boundaries on the signal's energy: Silero decides *that* speech started
 * or stopped, robustly, but it places the edges late (its probability rises up to ~2 windows after
 * a weak h/f onset and stays high ~1 window after the last sound: +0…+96 ms on espeak-ng speech).
 * The level of short blocks shows where sound actually began and ended, so each boundary is moved
 * to the first (start) or last (end) loud block near it. Loud = above an adaptive noise floor (the
 * quietest window of the last few seconds) by `marginDb`, and never below `minLevelDb`.
 *
 * Only timestamps change: what the detector decided, and when, stays the same.
 */
export interface RefinerOptions {
  marginDb: number
  minLevelDb: number
  /** How far before the VAD's edge the true one may lie. */
  searchBackMs: number
  /** How far after it (one window of granularity). */
  searchAheadMs: number
}

export const DEFAULT_REFINER: RefinerOptions = { marginDb: 12, minLevelDb: -53, searchBackMs: 96, searchAheadMs: 32 }

const BLOCK_MS = 8 // four blocks per 32 ms VAD window
const HISTORY_BLOCKS = 64 // 512 ms of levels around the edges
const FLOOR_WINDOWS = 94 // ~3 s of window minima for the noise floor

export class BoundaryRefiner {
  private readonly options: RefinerOptions
  private readonly levels = new Float64Array(HISTORY_BLOCKS)
  private readonly ends = new Float64Array(HISTORY_BLOCKS)
  private count = 0
  private readonly minima = new Float64Array(FLOOR_WINDOWS).fill(-Infinity)
  private windows = 0
  private readonly blockSamples: number

  /** Windows come at `sampleRate`. */
  constructor(
    options: Partial<RefinerOptions> = {},
    private readonly sampleRate: SpeechRate = 16000,
  ) {
    this.options = { ...DEFAULT_REFINER, ...options }
    this.blockSamples = (sampleRate * BLOCK_MS) / 1000
  }

  /** Every window, in order, as it is handed to the VAD. */
  push(w: TimedWindow): void {
    const blockSamples = this.blockSamples
    const blocks = Math.floor(w.samples.length / blockSamples)
    const startMs = w.endMs - (w.samples.length * 1000) / this.sampleRate
    let quietest = Infinity
    for (let b = 0; b < blocks; b++) {
      let sum = 0
      for (let i = b * blockSamples; i < (b + 1) * blockSamples; i++) sum += w.samples[i]! * w.samples[i]!
      const level = 10 * Math.log10(sum / blockSamples / (32768 * 32768) + 1e-12)
      const slot = this.count++ % HISTORY_BLOCKS
      this.levels[slot] = level
      this.ends[slot] = startMs + (b + 1) * BLOCK_MS
      quietest = Math.min(quietest, level)
    }
    this.minima[this.windows++ % FLOOR_WINDOWS] = quietest
  }

  /** The loudness a block needs to count as sound. */
  threshold(): number {
    let floor = Infinity
    for (let i = 0; i < Math.min(this.windows, FLOOR_WINDOWS); i++) floor = Math.min(floor, this.minima[i]!)
    if (!Number.isFinite(floor)) return this.options.minLevelDb
    return Math.max(floor + this.options.marginDb, this.options.minLevelDb)
  }

  /** The start of the first loud block (of two in a row) in [at − searchBack, at + searchAhead); else `at`. */
  refineStart(at: number): number {
    const th = this.threshold()
    const blocks = this.blocksIn(at - this.options.searchBackMs, at + this.options.searchAheadMs)
    for (let i = 0; i + 1 < blocks.length; i++) {
      if (blocks[i]!.level >= th && blocks[i + 1]!.level >= th) return blocks[i]!.end - BLOCK_MS
    }
    return at
  }

  /** The end of the last loud block in [at − searchBack, at + searchAhead); else `at`. */
  refineEnd(at: number): number {
    const th = this.threshold()
    const blocks = this.blocksIn(at - this.options.searchBackMs, at + this.options.searchAheadMs)
    for (let i = blocks.length - 1; i >= 0; i--) if (blocks[i]!.level >= th) return blocks[i]!.end
    return at
  }

  reset(): void {
    this.count = 0
    this.windows = 0
    this.minima.fill(-Infinity)
  }

  /** Blocks whose span lies in [from, to), oldest first. */
  private blocksIn(from: number, to: number): { level: number; end: number }[] {
    const out: { level: number; end: number }[] = []
    const n = Math.min(this.count, HISTORY_BLOCKS)
    for (let k = this.count - n; k < this.count; k++) {
      const slot = k % HISTORY_BLOCKS
      const end = this.ends[slot]!
      if (end - BLOCK_MS >= from && end <= to) out.push({ level: this.levels[slot]!, end })
    }
    return out
  }
}
