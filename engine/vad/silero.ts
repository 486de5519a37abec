import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import * as ort from 'onnxruntime-node'
import { isSpeechRate, type SpeechRate } from '../audio/format.js'
import { assertWindow, type VadModel, type VadStream, vadWindowSamples } from './types.js'

/**
 * The tail of the previous window prepended to each one, as silero-vad's own OnnxWrapper does
 * for v5 (64 samples at 16 kHz, 32 at 8 kHz): the model's STFT front end needs it to see an onset
 * that straddles two windows. The graph accepts any length, so 512 alone also runs, but then
 * (measured on espeak-ng speech) its probability dips to 0.4–0.8 inside words and decays over
 * ~300 ms after speech instead of dropping within a window or two.
 */
const contextSamples = (rate: SpeechRate): number => rate / 250
const STATE_SIZE = 2 * 1 * 128
/** Finished input arrays a stream keeps for its next windows (SileroStream.spareInputs). */
const MAX_SPARE_INPUTS = 4

/**
 * Windows quieter than this (RMS, dBFS) skip the model: probability 0, and the next audible window
 * starts from a fresh state, as a stream does after silence. Speech is 40–60 dB louder; a browser
 * microphone with noise suppression in a quiet room, or a phone line's idle noise, sits below it,
 * so most of a call's silence (the caller listening) costs no inference. `null` runs every window.
 * Measured (test/engine/vad/silero.test.ts): espeak-ng en/tr edges are unchanged by the gate.
 */
export const DEFAULT_SILENCE_GATE_DBFS = -70

export interface SileroOptions {
  /** See DEFAULT_SILENCE_GATE_DBFS; null turns the gate off. */
  silenceGateDbfs?: number | null
}

/** silero_vad_v5.onnx as shipped by @ricky0123/vad-web (ISC licence, model MIT from snakers4). */
export function defaultModelPath(): string {
  const pkg = createRequire(import.meta.url).resolve('@ricky0123/vad-web/package.json')
  return join(dirname(pkg), 'dist', 'silero_vad_v5.onnx')
}

/**
 * One InferenceSession for the whole process; each stream carries its own recurrent state. Windows
 * of different streams are batched into one run (the model takes [batch, samples] input and
 * [2, batch, 128] state, and a batched run gives bit-identical results): while a run is in flight
 * the next windows gather, and under load (over ~330 windows/s) a window waits up to MAX_GATHER_MS
 * for the others its arrival rate promises; an idle engine still runs each window at once.
 *
 * Cost, measured here (2 vCPU container, onnxruntime-node 1.30, one intra-op thread, 200 runs after
 * warm-up): 199 µs per window alone; batched 85 µs per window at 4, 58 at 16, 51 at 64. A call
 * sends 31.25 windows/s: 6 ms of CPU per second of audio alone, under 2 ms batched (100 calls:
 * ~62% of a core unbatched, under 20% batched). At 8 kHz (phone lines, 256-sample windows) a
 * window costs less batched: 41 µs at 8 and 30 at 32, against 61 and 48 at 16 kHz (2026-11-28,
 * same machine; alone it is 174 against 144 µs).
 *
 * Timing, measured on espeak-ng speech (test/engine/vad/silero.test.ts): the first window at
 * ≥ 0.5 begins at the voiced onset, but up to ~80 ms (2.5 windows) after a weak unvoiced onset
 * (h, f, th); after the last audible sample the model keeps ≥ 0.35 for up to ~3 windows.
 */
export class SileroModel implements VadModel {
  readonly kind = 'silero'
  /** One batcher per rate: a run takes one `sr` and one window width. */
  private readonly batchers: Record<SpeechRate, Batcher>

  /** Mean square (of int16 samples) of a window below which it is gated; -1 = never. */
  private readonly gateMeanSquare: number

  private constructor(
    private readonly session: ort.InferenceSession,
    options: SileroOptions,
  ) {
    this.batchers = { 8000: new Batcher(session, 8000), 16000: new Batcher(session, 16000) }
    const dbfs = options.silenceGateDbfs === undefined ? DEFAULT_SILENCE_GATE_DBFS : options.silenceGateDbfs
    if (dbfs !== null && !(dbfs <= 0)) throw new RangeError(`the silence gate is a level in dBFS (≤ 0), got ${dbfs}`)
    this.gateMeanSquare = dbfs === null ? -1 : (32768 * 10 ** (dbfs / 20)) ** 2
  }

  static async load(path = defaultModelPath(), options: SileroOptions = {}): Promise<SileroModel> {
    // One thread each: sessions are many and small, so parallelism comes from running many
    // streams, not from splitting a 512-sample window across cores.
    const session = await ort.InferenceSession.create(path, { intraOpNumThreads: 1, interOpNumThreads: 1 })
    for (const name of ['input', 'state', 'sr']) {
      if (!session.inputNames.includes(name)) throw new Error(`${path} is not a Silero v5 model (no input "${name}")`)
    }
    return new SileroModel(session, options)
  }

  stream(sampleRate: SpeechRate = 16000): VadStream {
    if (!isSpeechRate(sampleRate)) throw new RangeError(`Silero runs at 8000 or 16000 Hz, not ${sampleRate}`)
    const gateEnergy = this.gateMeanSquare < 0 ? -1 : this.gateMeanSquare * vadWindowSamples(sampleRate)
    return new SileroStream(this.batchers[sampleRate], gateEnergy, this.gateCounter)
  }

  private readonly gateCounter = { gated: 0 }

  /** Windows inferred, model runs (windows / runs = the mean batch) and windows the gate skipped, both rates together. */
  get stats(): { windows: number; runs: number; gated: number } {
    const [a, b] = [this.batchers[8000], this.batchers[16000]]
    return { windows: a.windows + b.windows, runs: a.runs + b.runs, gated: this.gateCounter.gated }
  }

  release(): Promise<void> {
    return this.session.release()
  }
}

/** Windows batched per run; more wait for the next run. */
const MAX_BATCH = 64
/**
 * Under load a window waits up to this long for others to share its run. Windows of different
 * calls rarely arrive in the same I/O turn, so without waiting most runs hold one window (199 µs)
 * where 8 cost 70 µs each. The wait applies only when the arrival rate says enough windows will come
 * within it (over ~330 windows/s, i.e. ~11 calls): one call alone, or a quiet engine, never waits.
 */
export const MAX_GATHER_MS = 3
/** How often the arrival rate is re-estimated. */
const RATE_EVERY_MS = 250

interface Job {
  input: Float32Array
  /** The stream's state: read into the batch, then overwritten in place with the state after the window. */
  state: Float32Array
  resolve(probability: number): void
  reject(err: unknown): void
}

/**
 * Runs the windows of many streams of one rate together: one run in flight, the next batch
 * gathering meanwhile. The two rates' batchers share the session; ORT runs them one at a time.
 */
class Batcher {
  private readonly sr: ort.Tensor
  private pending: Job[] = []
  private inputBuf = new Float32Array(0)
  private readonly stateBuf = new Float32Array(2 * MAX_BATCH * 128)
  private running = false
  private scheduled: 'immediate' | NodeJS.Timeout | null = null
  /** Windows expected per MAX_GATHER_MS at the current arrival rate (1 when quiet). */
  private target = 1
  private counted = 0
  private countedSince = performance.now()
  windows = 0
  runs = 0

  constructor(
    private readonly session: ort.InferenceSession,
    readonly rate: SpeechRate,
  ) {
    this.sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(rate)]), [])
  }

  submit(input: Float32Array, state: Float32Array): Promise<number> {
    return new Promise((resolve, reject) => {
      this.pending.push({ input, state, resolve, reject })
      this.measure()
      this.plan()
    })
  }

  /** Batch size worth waiting for, from the windows that arrived over the last RATE_EVERY_MS. */
  private measure(): void {
    this.counted++
    const now = performance.now()
    const elapsed = now - this.countedSince
    if (elapsed < RATE_EVERY_MS) return
    this.target = Math.max(1, Math.min(MAX_BATCH, Math.floor((this.counted / elapsed) * MAX_GATHER_MS)))
    this.counted = 0
    this.countedSince = now
  }

  /**
   * When the next run starts: a full batch after this I/O turn (windows of other sockets read in
   * the same turn still join); a partial one when MAX_GATHER_MS has passed since its first window.
   */
  private plan(): void {
    if (this.running || this.pending.length === 0 || this.scheduled === 'immediate') return
    if (this.pending.length >= this.target) {
      if (this.scheduled !== null) clearTimeout(this.scheduled)
      setImmediate(() => this.fire())
      this.scheduled = 'immediate'
    } else if (this.scheduled === null) {
      this.scheduled = setTimeout(() => this.fire(), MAX_GATHER_MS)
    }
  }

  private fire(): void {
    this.scheduled = null
    void this.next()
  }

  private async next(): Promise<void> {
    if (this.running || this.pending.length === 0) return
    this.running = true
    const jobs = this.pending.splice(0, MAX_BATCH)
    this.runs++
    this.windows += jobs.length
    try {
      const out = await this.runBatch(jobs)
      jobs.forEach((j, b) => j.resolve(out[b]!))
    } catch (err) {
      for (const j of jobs) j.reject(err)
    } finally {
      this.running = false
      // What gathered during the run goes as any batch does.
      this.plan()
    }
  }

  private async runBatch(jobs: Job[]): Promise<number[]> {
    const n = jobs.length
    const width = jobs[0]!.input.length
    // One run is in flight at a time and ORT reads its inputs only during it, so the batch's input
    // and state arrays are the batcher's own, reused: no allocation per run.
    if (this.inputBuf.length < n * width) this.inputBuf = new Float32Array(MAX_BATCH * width)
    const input = this.inputBuf.subarray(0, n * width)
    // State is [2, batch, 128]: each job's two halves go to rows b and n + b.
    const state = this.stateBuf.subarray(0, 2 * n * 128)
    jobs.forEach((j, b) => {
      input.set(j.input, b * width)
      state.set(j.state.subarray(0, 128), b * 128)
      state.set(j.state.subarray(128), (n + b) * 128)
    })
    const out = await this.session.run({
      input: new ort.Tensor('float32', input, [n, width]),
      state: new ort.Tensor('float32', state, [2, n, 128]),
      sr: this.sr,
    })
    const probabilities = out['output']?.data
    const stateN = out['stateN']?.data
    if (!(probabilities instanceof Float32Array) || probabilities.length !== n || !(stateN instanceof Float32Array) || stateN.length !== 2 * n * 128) {
      throw new Error('Silero model returned no output/stateN of the batch size')
    }
    // In place: the stream's run is queued behind this one, and reset() swaps in a fresh array.
    return jobs.map((j, b) => {
      j.state.set(stateN.subarray(b * 128, (b + 1) * 128), 0)
      j.state.set(stateN.subarray((n + b) * 128, (n + b + 1) * 128), 128)
      return probabilities[b]!
    })
  }
}

class SileroStream implements VadStream {
  readonly sampleRate: SpeechRate
  private readonly contextSamples: number
  private state: Float32Array = new Float32Array(STATE_SIZE)
  private context: Float32Array
  private queue: Promise<unknown> = Promise.resolve()
  /**
   * Input arrays whose runs are over, for the next windows: a window every 32 ms per call, each
   * a new array, was ArrayBuffer memory V8 counts toward its next full GC (slab.ts). Runs are
   * queued one at a time per stream, so one or two are in use; a backlog leaves a few more.
   */
  private readonly spareInputs: Float32Array[] = []
  /** Bumped by reset() so a run already in flight cannot write back the old state. */
  private generation = 0

  constructor(
    private readonly batcher: Batcher,
    private readonly gateEnergy: number,
    private readonly counter: { gated: number },
  ) {
    this.sampleRate = batcher.rate
    this.contextSamples = contextSamples(batcher.rate)
    this.context = new Float32Array(this.contextSamples)
  }

  process(window: Int16Array): Promise<number> {
    assertWindow(window, this.sampleRate)
    const context = this.contextSamples
    let energy = 0
    for (let i = 0; i < window.length; i++) energy += window[i]! * window[i]!
    // Runs are queued so each sees the state and context its predecessor left, and `window` is
    // the caller's to refill once this returns (VadStream.process): what a run needs is copied now.
    // A gated window needs only its tail, in a plain array: an input array would only count
    // toward the external memory that starts V8's full GCs (slab.ts).
    if (energy < this.gateEnergy) {
      const tail = Array.from(window.subarray(window.length - context))
      return this.enqueue(() => this.gate(tail))
    }
    const input = this.spareInputs.pop() ?? new Float32Array(context + window.length)
    for (let i = 0; i < window.length; i++) input[context + i] = window[i]! / 32768
    return this.enqueue(() => this.infer(input))
  }

  private enqueue(step: () => number | Promise<number>): Promise<number> {
    const result = this.queue.then(step)
    this.queue = result.catch(() => undefined)
    return result
  }

  /** A silent window: no run; the next audible one starts fresh but keeps this one's tail as context. */
  private gate(tail: number[]): number {
    this.counter.gated++
    this.state.fill(0)
    for (let i = 0; i < tail.length; i++) this.context[i] = tail[i]! / 32768
    return 0
  }

  reset(): void {
    this.generation++
    this.state = new Float32Array(STATE_SIZE)
    this.context = new Float32Array(this.contextSamples)
  }

  private async infer(input: Float32Array): Promise<number> {
    const generation = this.generation
    input.set(this.context)
    // The batcher writes the state after this window into this.state itself.
    try {
      const probability = await this.batcher.submit(input, this.state)
      if (generation === this.generation) this.context.set(input.subarray(input.length - this.contextSamples))
      return probability
    } finally {
      // The batch copied the input into its own tensor when its run began; whether the run
      // succeeded or not, the array is free for the stream's next window.
      if (this.spareInputs.length < MAX_SPARE_INPUTS) this.spareInputs.push(input)
    }
  }
}
