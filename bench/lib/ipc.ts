import { REPO_ROOT } from './report.js'
import { dumpSourceMaps } from './sourcemaps.js'

/** Messages between a bench and the server child it forked (over the fork IPC channel). */
export type ToChild = { type: 'stop' } | { type: 'mark'; label: string }
export type FromChild =
  | { type: 'ready'; port: number }
  /**
   * `us`: CLOCK_MONOTONIC in microseconds, the clock V8 stamps .cpuprofile samples with;
   * `cpu_us`: the process's CPU time so far (user + system, all threads); `sys_us`: its system part.
   */
  | { type: 'mark'; label: string; us: number; cpu_us: number; sys_us: number }

/**
 * Wires the child side: answers marks, and on stop (or a vanished parent) runs `close` and exits 0.
 * With BENCH_SOURCEMAPS_OUT set (profiled runs), first writes the source maps of the repo's loaded
 * .ts files there, so the bench can map .cpuprofile positions back to source lines.
 */
export function serveParent(close: () => Promise<void>): void {
  const send = (m: FromChild) => process.send?.(m)
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    // A normal exit (not a signal) is what makes --cpu-prof write its file.
    close().then(
      () => {
        if (process.env.BENCH_SOURCEMAPS_OUT) dumpSourceMaps(REPO_ROOT, process.env.BENCH_SOURCEMAPS_OUT)
        process.exit(0)
      },
      (err: unknown) => {
        console.error(err)
        process.exit(1)
      },
    )
  }
  process.on('message', (m: ToChild) => {
    if (m.type === 'stop') stop()
    else if (m.type === 'mark') {
      const cpu = process.cpuUsage()
      send({ type: 'mark', label: m.label, us: Number(process.hrtime.bigint() / 1000n), cpu_us: cpu.user + cpu.system, sys_us: cpu.system })
    }
  })
  process.on('disconnect', stop)
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

export function announceReady(port: number): void {
  process.send?.({ type: 'ready', port } satisfies FromChild)
}
