/**
 * The resampler's multiply-adds in WebAssembly SIMD (fir.wat): ~5–6× the scalar JavaScript loop.
 *
 * One module instance and one memory for the process. JavaScript is single-threaded and a run is
 * synchronous, so every Resampler shares it: tap tables are copied in once and stay (one per rate
 * pair: a handful per process), and each run copies the input history it needs into a scratch area
 * after them and reads its outputs back. The copies are a small fraction of the work (one float per
 * input sample against 2·half multiply-adds per output sample).
 */
import { FIR_WASM_BASE64 } from './fir-wasm.js'

interface FirExports {
  memory: WebAssembly.Memory
  fir(input: number, taps: number, len: number, out: number, count: number, phase: number, up: number, down: number): void
}

const PAGE = 64 * 1024

export class FirEngine {
  private readonly wasm: FirExports
  /** Tables end here; the scratch area starts here (16-byte aligned). */
  private tablesEnd = 0

  constructor() {
    const module = new WebAssembly.Module(Buffer.from(FIR_WASM_BASE64, 'base64'))
    this.wasm = new WebAssembly.Instance(module).exports as unknown as FirExports
  }

  /** Copies a tap table (rows of `len` taps, len a multiple of 4) in for good; returns its offset. */
  addTable(taps: Float32Array): number {
    const at = this.tablesEnd
    this.ensure(at + taps.byteLength)
    new Float32Array(this.wasm.memory.buffer, at, taps.length).set(taps)
    this.tablesEnd = align16(at + taps.byteLength)
    return at
  }

  /**
   * Runs `count` outputs over `input` (output 0's first tap on input[0]) and writes them to `out`.
   * `input` must hold every sample the last output's taps reach.
   */
  run(table: number, len: number, input: Float32Array, count: number, phase: number, up: number, down: number, out: Int16Array): void {
    const inAt = this.tablesEnd
    const outAt = align16(inAt + input.byteLength)
    this.ensure(outAt + count * 2)
    const mem = this.wasm.memory.buffer
    new Float32Array(mem, inAt, input.length).set(input)
    this.wasm.fir(inAt, table, len, outAt, count, phase, up, down)
    out.set(new Int16Array(mem, outAt, count))
  }

  private ensure(bytes: number): void {
    const have = this.wasm.memory.buffer.byteLength
    if (bytes > have) this.wasm.memory.grow(Math.ceil((bytes - have) / PAGE))
  }
}

const align16 = (n: number) => (n + 15) & ~15

let shared: FirEngine | null | undefined
/** The process's FirEngine; null where WebAssembly SIMD is unavailable (the scalar loop then runs). */
export function firEngine(): FirEngine | null {
  if (shared === undefined) {
    try {
      shared = new FirEngine()
    } catch {
      shared = null
    }
  }
  return shared
}
