/**
 * The engine under test, in its own process (forked by bench/voice-calls.ts, usually under
 * `taskset -c <core>`): the real app as bin/ozan.ts builds it, plus the call engine on its own
 * port. Config comes from the environment the bench sets (temp OZAN_DATA_DIR, port 0, a raised
 * OZAN_MAX_LIVE_CALLS_PER_ORG). Besides the usual ready/mark/stop (ipc.ts), the parent can ask for
 * a `sample`: event-loop delay p99 since the previous sample, and RSS.
 */
import fs from 'node:fs'
import { Session } from 'node:inspector/promises'
import path from 'node:path'
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks'
import { startEngine, startTelephony } from '../../api/index.js'
import { startBenchApp } from './app.js'
import { serveParent } from './ipc.js'

export type EngineToChild = { type: 'sample' }
export type EngineFromChild =
  /** sipPort: the SIP listener's (UDP) port when BENCH_SIP=1 asked for one, else null. */
  | { type: 'engine_ready'; apiPort: number; enginePort: number; transport: string; sipPort: number | null }
  /** Loop delay over the window since the last sample (ms), RSS and CPU time used so far. */
  | { type: 'sample'; lagP99Ms: number; lagMaxMs: number; rssMb: number; cpuMs: number; vad: { windows: number; runs: number; gated: number } | null }

/** The histogram's timer resolution (ms): finer costs the engine more wake-ups. */
const LAG_RESOLUTION_MS = 10

const { config, logger, app, server, close } = await startBenchApp()
const engine = await startEngine({ services: app.services, config, logger })
// BENCH_SIP=1 (the sip-calls bench): phone calls too, as `npm start` opens them (OZAN_SIP_* from the environment).
const telephony = process.env.BENCH_SIP === '1' ? await startTelephony({ services: app.services, config, engine, logger }) : null

// BENCH_ENGINE_STALLS=1: every loop stall over 15 ms and every GC pause over 3 ms goes to stdout
// (engine.log) with the process uptime, to tell GC pauses from long tasks.
if (process.env.BENCH_ENGINE_STALLS) watchStalls()
// BENCH_ENGINE_HEAP_PROF=<dir>: a sampling heap profile of each interval between two samples (the
// bench's measuring windows), counting what young and full GCs collected too: what the engine
// allocates, not only what it keeps (bench/README.md). With BENCH_ENGINE_HEAP_PROF_SURVIVORS=1,
// only what outlived a young GC: what was promoted, the old generation's growth that full GCs pay for.
const heapProfile = process.env.BENCH_ENGINE_HEAP_PROF ? await sampleHeap(process.env.BENCH_ENGINE_HEAP_PROF) : null

const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS })
lag.enable()
const send = (m: EngineFromChild) => process.send?.(m)
process.on('message', (m: EngineToChild | { type: string }) => {
  if (m.type !== 'sample') return
  // In the stall log, samples mark where the bench's measuring windows begin and end.
  if (process.env.BENCH_ENGINE_STALLS) process.stdout.write(`sample ${Math.round(performance.now())}\n`)
  void heapProfile?.()
  if (process.env.BENCH_ENGINE_GC_SAMPLE) logMemoryAfterGc()
  const cpu = process.cpuUsage()
  // The histogram holds whole timer intervals; the delay is what exceeds the resolution.
  const p99 = Math.max(0, lag.percentile(99) / 1e6 - LAG_RESOLUTION_MS)
  const max = Math.max(0, lag.max / 1e6 - LAG_RESOLUTION_MS)
  send({
    type: 'sample',
    lagP99Ms: p99,
    lagMaxMs: max,
    rssMb: process.memoryUsage.rss() / 2 ** 20,
    cpuMs: (cpu.user + cpu.system) / 1000,
    vad: engine.vadStats(),
  })
  lag.reset()
})
send({ type: 'engine_ready', apiPort: server.port, enginePort: engine.port, transport: engine.kind, sipPort: telephony?.port ?? null })
serveParent(async () => {
  lag.disable()
  await engine.close()
  await telephony?.close()
  await close()
})

function watchStalls(): void {
  let last = performance.now()
  setInterval(() => {
    const now = performance.now()
    if (now - last > 20) process.stdout.write(`stall ${Math.round(last)} +${Math.round(now - last - 5)} ms\n`)
    last = now
  }, 5).unref()
  setInterval(() => {
    const m = process.memoryUsage()
    process.stdout.write(
      `mem ${Math.round(performance.now())} heap ${(m.heapUsed / 2 ** 20).toFixed(0)}/${(m.heapTotal / 2 ** 20).toFixed(0)} MB external ${(m.external / 2 ** 20).toFixed(0)} MB array buffers ${(m.arrayBuffers / 2 ** 20).toFixed(0)} MB\n`,
    )
  }, 5000).unref()
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.duration > 3)
        process.stdout.write(`gc ${Math.round(e.startTime)} ${e.duration.toFixed(1)} ms kind ${(e as { detail?: { kind?: number } }).detail?.kind}\n`)
  }).observe({ entryTypes: ['gc'] })
}

/**
 * BENCH_ENGINE_GC_SAMPLE=1 (with BENCH_ENGINE_FLAGS=--expose-gc and BENCH_ENGINE_STALLS=1): a full
 * GC at each sample, then the memory that is really held, to engine.log. What a call keeps is the
 * difference between two steps over the difference in calls, free of when the GC last ran. The
 * forced GC stalls the engine: read jitter from a run without it.
 */
function logMemoryAfterGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('BENCH_ENGINE_GC_SAMPLE needs BENCH_ENGINE_FLAGS=--expose-gc')
  gc()
  const m = process.memoryUsage()
  const mb = (n: number) => (n / 2 ** 20).toFixed(2)
  process.stdout.write(
    `held ${Math.round(performance.now())} heap ${mb(m.heapUsed)} MB external ${mb(m.external)} MB array buffers ${mb(m.arrayBuffers)} MB rss ${mb(m.rss)} MB\n`,
  )
}

/** Starts the sampler; each call writes what was sampled since the last one (`heap-<n>.heapprofile`) and starts again. */
async function sampleHeap(dir: string): Promise<() => Promise<void>> {
  const session = new Session()
  session.connect()
  await session.post('HeapProfiler.enable')
  const start = () =>
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 16_384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !process.env.BENCH_ENGINE_HEAP_PROF_SURVIVORS,
    })
  await start()
  let n = 0
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling')
    fs.writeFileSync(path.join(dir, `heap-${n++}.heapprofile`), JSON.stringify(profile))
    await start()
  }
}
