import { isSpeechRate, type SpeechRate } from '../audio/format.js'
import { rms } from '../audio/pcm.js'
import { assertWindow, VAD_WINDOW_MS, type VadModel, type VadStream } from './types.js'

export interface EnergyVadOptions {
  /** How far above the noise floor a window must be to count as speech (the 0.5 point). */
  marginDb: number
  /** Width of the soft step around that point: ±2 slopes covers 0.12..0.88. */
  slopeDb: number
  /** The noise floor never goes below this, so digital silence does not make a hiss "speech". */
  minFloorDb: number
  /** The floor assumed before there is any history (as if this much had been heard so far). */
  initialFloorDb: number
  /**
   * The floor is the quietest window of this much history (minimum statistics): long enough
   * that speech always holds a quieter gap (a pause, a stop consonant) in that span, short
   * enough that a new steady noise is learned within it.
   */
  floorHistoryMs: number
}

export const DEFAULT_ENERGY_VAD: EnergyVadOptions = {
  marginDb: 12,
  slopeDb: 2,
  minFloorDb: -65,
  initialFloorDb: -50,
  floorHistoryMs: 3000,
}

/**
 * The fallback when the Silero model cannot be loaded: a level detector with an adaptive noise
 * floor. It cannot tell speech from other loud sound (music, a door), which is why it is only a
 * fallback; on clean speech its boundaries are close to Silero's (test/engine/vad/energy.test.ts).
 */
export class EnergyVad implements VadStream {
  private readonly options: EnergyVadOptions
  /** Ring of the last window levels in dBFS. */
  private readonly history: Float64Array
  private next = 0

  constructor(
    options: Partial<EnergyVadOptions> = {},
    readonly sampleRate: SpeechRate = 16000,
  ) {
    this.options = { ...DEFAULT_ENERGY_VAD, ...options }
    if (!isSpeechRate(sampleRate)) throw new RangeError(`the energy VAD takes 8000 or 16000 Hz windows, not ${sampleRate}`)
    if (!(this.options.floorHistoryMs >= VAD_WINDOW_MS)) throw new RangeError('floorHistoryMs must cover a window')
    this.history = new Float64Array(Math.round(this.options.floorHistoryMs / VAD_WINDOW_MS))
    this.reset()
  }

  process(window: Int16Array): Promise<number> {
    return Promise.resolve(this.score(window))
  }

  /** The synchronous core of process(). */
  score(window: Int16Array): number {
    assertWindow(window, this.sampleRate)
    const { marginDb, slopeDb, minFloorDb } = this.options
    const levelDb = 20 * Math.log10(Math.max(rms(window), 1e-6))
    this.history[this.next] = levelDb
    this.next = (this.next + 1) % this.history.length
    let floorDb = Infinity
    for (const level of this.history) floorDb = Math.min(floorDb, level)
    floorDb = Math.max(floorDb, minFloorDb)
    return 1 / (1 + Math.exp(-(levelDb - floorDb - marginDb) / slopeDb))
  }

  reset(): void {
    this.history.fill(this.options.initialFloorDb)
    this.next = 0
  }
}

export class EnergyVadModel implements VadModel {
  readonly kind = 'energy'
  constructor(private readonly options: Partial<EnergyVadOptions> = {}) {}
  stream(sampleRate: SpeechRate = 16000): EnergyVad {
    return new EnergyVad(this.options, sampleRate)
  }
  release(): Promise<void> {
    return Promise.resolve()
  }
}
