/**
 * Times across threads. `performance.now()` counts from each thread's own origin, so a worker's
 * "now" is not the main thread's; both are the process's monotonic clock (libuv's hrtime, which
 * `process.hrtime.bigint()` reads) minus a constant. Each side measures its constant once; a time
 * crosses as `time − mine + theirs`.
 */
import { performance } from 'node:perf_hooks'

/** This thread's `performance.now()` minus the monotonic clock, in ms (within a microsecond or so). */
export function monotonicOffsetMs(): number {
  let best = Number.POSITIVE_INFINITY
  let offset = 0
  for (let i = 0; i < 5; i++) {
    const before = performance.now()
    const monotonic = Number(process.hrtime.bigint()) / 1e6
    const after = performance.now()
    if (after - before < best) {
      best = after - before
      offset = (before + after) / 2 - monotonic
    }
  }
  return offset
}
