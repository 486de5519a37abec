/**
 * The engine under test, in its own process (forked by bench/voice-calls.ts, usually under
 * `taskset -c <core>`): the real app as bin/ozan.ts builds it, plus the call engine on its own
 * port. Config comes from the environment the bench sets (temp OZAN_DATA_DIR, port 0, a raised
 * OZAN_MAX_LIVE_CALLS_PER_ORG). Besides the usual ready/mark/stop (ipc.ts), the parent can ask for
 * a `sample`: event-loop delay p99 since the previous sample, and RSS.
 */
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks'
import { startEngine } from '../../api/index.js'
import { startBenchApp } from './app.js'
import { serveParent } from './ipc.js'

export type EngineToChild = { type: 'sample' }
export type EngineFromChild =
  | { type: 'engine_ready'; apiPort: number; enginePort: number; transport: string }
  /** Loop delay over the window since the last sample (ms), RSS and CPU time used so far. */
  | { type: 'sample'; lagP99Ms: number; lagMaxMs: number; rssMb: number; cpuMs: number; vad: { windows: number; runs: number; gated: number } | null }

/** The histogram's timer resolution (ms): finer costs the engine more wake-ups. */
const LAG_RESOLUTION_MS = 10

const { config, logger, app, server, close } = await startBenchApp()
const engine = await startEngine({ services: app.services, config, logger })

// BENCH_ENGINE_STALLS=1: every loop stall over 15 ms and every GC pause over 3 ms goes to stdout
// (engine.log) with the process uptime, to tell GC pauses from long tasks.
if (process.env.BENCH_ENGINE_STALLS) watchStalls()

const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS })
lag.enable()
const send = (m: EngineFromChild) => process.send?.(m)
process.on('message', (m: EngineToChild | { type: string }) => {
  if (m.type !== 'sample') return
  // In the stall log, samples mark where the bench's measuring windows begin and end.
  if (process.env.BENCH_ENGINE_STALLS) process.stdout.write(`sample ${Math.round(performance.now())}\n`)
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
send({ type: 'engine_ready', apiPort: server.port, enginePort: engine.port, transport: engine.kind })
serveParent(async () => {
  lag.disable()
  await engine.close()
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
