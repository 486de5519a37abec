import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import * as ort from 'onnxruntime-node'
import { SAMPLE_RATE } from '../audio/format.js'
import { assertWindow, type VadModel, type VadStream } from './types.js'

/**
 * The tail of the previous window prepended to each one, as silero-vad's own OnnxWrapper does
 * for v5: the model's STFT front end needs it to see an onset that straddles two windows.
 * The graph accepts any length, so 512 alone also runs, but then (measured on espeak-ng speech)
 * its probability dips to 0.4–0.8 inside words and decays over ~300 ms after speech instead of
 * dropping within a window or two.
 */
const CONTEXT_SAMPLES = 64
const STATE_SIZE = 2 * 1 * 128

/** silero_vad_v5.onnx as shipped by @ricky0123/vad-web (ISC licence, model MIT from snakers4). */
export function defaultModelPath(): string {
  const pkg = createRequire(import.meta.url).resolve('@ricky0123/vad-web/package.json')
  return join(dirname(pkg), 'dist', 'silero_vad_v5.onnx')
}

/**
 * One InferenceSession for the whole process; each stream carries its own recurrent state, so
 * runs from different sessions may interleave freely.
 *
 * Cost, measured here (2 vCPU container, onnxruntime-node 1.30, one intra-op thread, 1000 windows
 * after warm-up): 240 µs per 512-sample window on a quiet machine, 250–320 µs with other work
 * running. A session sends 31.25 windows/s, so 7.5–10 ms of CPU per second of audio: 0.75–1% of
 * a core, 100–130 sessions per core for the VAD alone.
 *
 * Timing, measured on espeak-ng speech (test/engine/vad/silero.test.ts): the first window at
 * ≥ 0.5 begins at the voiced onset, but up to ~80 ms (2.5 windows) after a weak unvoiced onset
 * (h, f, th); after the last audible sample the model keeps ≥ 0.35 for up to ~3 windows.
 */
export class SileroModel implements VadModel {
  readonly kind = 'silero'
  private readonly sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(SAMPLE_RATE)]), [])

  private constructor(private readonly session: ort.InferenceSession) {}

  static async load(path = defaultModelPath()): Promise<SileroModel> {
    // One thread each: sessions are many and small, so parallelism comes from running many
    // streams, not from splitting a 512-sample window across cores.
    const session = await ort.InferenceSession.create(path, { intraOpNumThreads: 1, interOpNumThreads: 1 })
    for (const name of ['input', 'state', 'sr']) {
      if (!session.inputNames.includes(name)) throw new Error(`${path} is not a Silero v5 model (no input "${name}")`)
    }
    return new SileroModel(session)
  }

  stream(): VadStream {
    return new SileroStream((feeds) => this.session.run(feeds), this.sr)
  }

  release(): Promise<void> {
    return this.session.release()
  }
}

type Run = (feeds: Record<string, ort.Tensor>) => Promise<ort.InferenceSession.OnnxValueMapType>

class SileroStream implements VadStream {
  private state: Float32Array = new Float32Array(STATE_SIZE)
  private context: Float32Array = new Float32Array(CONTEXT_SAMPLES)
  private queue: Promise<unknown> = Promise.resolve()
  /** Bumped by reset() so a run already in flight cannot write back the old state. */
  private generation = 0

  constructor(
    private readonly run: Run,
    private readonly sr: ort.Tensor,
  ) {}

  process(window: Int16Array): Promise<number> {
    assertWindow(window)
    const input = new Float32Array(CONTEXT_SAMPLES + window.length)
    for (let i = 0; i < window.length; i++) input[CONTEXT_SAMPLES + i] = window[i]! / 32768
    // Runs are queued so each sees the state and context its predecessor left.
    const result = this.queue.then(() => this.infer(input))
    this.queue = result.catch(() => undefined)
    return result
  }

  reset(): void {
    this.generation++
    this.state = new Float32Array(STATE_SIZE)
    this.context = new Float32Array(CONTEXT_SAMPLES)
  }

  private async infer(input: Float32Array): Promise<number> {
    const generation = this.generation
    input.set(this.context)
    const out = await this.run({
      input: new ort.Tensor('float32', input, [1, input.length]),
      state: new ort.Tensor('float32', this.state, [2, 1, 128]),
      sr: this.sr,
    })
    const probability = out['output']?.data[0]
    const stateN = out['stateN']?.data
    if (typeof probability !== 'number' || !(stateN instanceof Float32Array)) {
      throw new Error('Silero model returned no output/stateN')
    }
    if (generation === this.generation) {
      this.state = stateN
      this.context = input.slice(input.length - CONTEXT_SAMPLES)
    }
    return probability
  }
}
