/**
 * A census of the engine's new off-heap typed arrays, by call site: loaded into the engine with
 * `--import` when BENCH_ENGINE_BUFFER_CENSUS=<file> is set (bench/voice/engine-child.ts), it
 * rewrites `<file>` every 5 s with the bytes allocated per second and the sites that allocate the
 * most.
 *
 * Why: V8 starts a full GC (and its stall of every call's audio) when ArrayBuffer memory has grown
 * 64 MB since the last one, so bytes of fresh ArrayBuffers per second are a figure to drive down,
 * and a heap profile does not show them (it weighs an array by its small on-heap object).
 *
 * How: the typed-array constructors (and ArrayBuffer) are wrapped in a Proxy, also as their
 * prototypes' `constructor`, so `slice()` and the like are seen too. An array over 64 bytes that
 * is not a view of an existing buffer is counted (V8 keeps smaller ones on the heap). One in
 * SAMPLE_EVERY gets its stack taken, weighted back up. Node's own buffers (socket reads, the
 * Buffer pool) are made inside Node and not seen. It slows the engine: read figures, not jitter.
 */
import fs from 'node:fs'

const SAMPLE_EVERY = 50
const REPORT_MS = 5000
const TOP_SITES = 30
/** V8 allocates typed arrays up to this size inside the JS heap (V8_TYPED_ARRAY_MAX_SIZE_IN_HEAP). */
const ON_HEAP_BYTES = 64

const WRAPPED = ['ArrayBuffer', 'Int8Array', 'Uint8Array', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array'] as const

export interface Census {
  bytes: number
  arrays: number
  /** Estimated bytes by call site (the stack's top frames). */
  sites: Map<string, number>
  /** Puts the original constructors back. */
  stop(): void
}

type Constructor = new (...args: unknown[]) => ArrayBufferView | ArrayBuffer

/** Wraps the constructors in `scope` (globalThis in the engine); returns the live counts. */
export function takeCensus(scope: Record<string, unknown>, random: () => number = Math.random): Census {
  const restore: Array<() => void> = []
  const census: Census = { bytes: 0, arrays: 0, sites: new Map(), stop: () => restore.forEach((r) => r()) }
  for (const name of WRAPPED) {
    const original = scope[name] as Constructor
    restore.push(() => {
      scope[name] = original
      Object.defineProperty(original.prototype, 'constructor', { value: original, writable: true, configurable: true })
    })
    const counted: Constructor = new Proxy(original, {
      construct(target, args, newTarget) {
        const made = Reflect.construct(target, args, newTarget === counted ? target : newTarget) as ArrayBufferView | ArrayBuffer
        const first = args[0]
        const fresh = name === 'ArrayBuffer' || !(first instanceof ArrayBuffer || first instanceof SharedArrayBuffer)
        if (fresh && made.byteLength > ON_HEAP_BYTES) {
          census.bytes += made.byteLength
          census.arrays++
          if (random() * SAMPLE_EVERY < 1) {
            const site = `${name} at ${callSite(new Error().stack ?? '')}`
            census.sites.set(site, (census.sites.get(site) ?? 0) + made.byteLength * SAMPLE_EVERY)
          }
        }
        return made
      },
    })
    scope[name] = counted
    Object.defineProperty(original.prototype, 'constructor', { value: counted, writable: true, configurable: true })
  }
  return census
}

/** The allocating frame and two callers, paths relative to the working directory. */
function callSite(stack: string): string {
  const cwd = `${process.cwd()}/`
  return stack
    .split('\n')
    .slice(2, 5)
    .map((line) => line.trim().replace(/^at /, '').replace(`file://${cwd}`, '').replace(cwd, ''))
    .join(' < ')
}

export function describeCensus(census: Census, seconds: number): string {
  const head = `after ${seconds.toFixed(0)} s: ${(census.bytes / 1e6).toFixed(1)} MB in ${census.arrays} new arrays (${(census.bytes / 1e6 / seconds).toFixed(2)} MB/s)`
  const rows = [...census.sites].sort((a, b) => b[1] - a[1]).slice(0, TOP_SITES)
  return [head, ...rows.map(([site, bytes]) => `${(bytes / 1e6).toFixed(2)} MB  ${site}`)].join('\n') + '\n'
}

const out = process.env.BENCH_ENGINE_BUFFER_CENSUS
if (out) {
  const census = takeCensus(globalThis as unknown as Record<string, unknown>)
  const started = performance.now()
  setInterval(() => fs.writeFileSync(out, describeCensus(census, (performance.now() - started) / 1000)), REPORT_MS).unref()
}
