/**
 * A capacity step's verdict (capacity.ts measures, this judges; pure, so it is tested on figures):
 * ok when every call stayed up, frames were measured, the jitter p99 is under its limit and the
 * engine's loop lag p99 is under its own.
 *
 * Which jitter: the wire capture's (the engine's output as it left it, wire.ts) unless the run
 * chose the callers' (`--no-wire`). A step that was to be judged on the wire and could not be
 * captured is **invalid**, not ok and not quietly judged on the callers' clock: on a 2-core
 * machine that clock is the bench's own (at 200 calls the callers measured 62.7 ms p99 with the
 * engine's loop lag at 3.4 ms, and without the wire nobody could say whose the jitter was).
 *
 * For a step whose jitter is over the limit, `jitter_clock` says where it came from:
 * - `engine_loop_lag`: on the wire too, and the engine's event loop was late (its lag p99 at least
 *   half the limit's, or half the jitter): the engine sent late because it ran late;
 * - `wire_capture`: on the wire, with the engine's loop on time: the output was late after the
 *   loop (its socket writes, the kernel, a GC thread sharing the core);
 * - `callers_receive_clock`: only at the callers (the wire was on time), or the callers' figure was
 *   all there was (`--no-wire`): when the bench read the frames, which its own loop lag delays.
 */

export type JitterClock = 'engine_loop_lag' | 'wire_capture' | 'callers_receive_clock'
export type StepFailure = 'jitter' | 'loop_lag' | 'calls_lost' | 'no_frames' | 'wire_capture_failed'

export interface StepFigures {
  sessions: number
  /** Calls still up at the end of the window. */
  live: number
  /** Agent frames the callers received in the window. */
  frames: number
  callersJitterP99Ms: number
  /** 'off': `--no-wire`; a string: why the capture failed; else the capture's figures. */
  wire: 'off' | { failed: string } | { jitterP99Ms: number; frames: number }
  loopLagP99Ms: number
  /** The bench process's own loop lag p99 (the callers' clock). */
  benchLagP99Ms: number
}

export interface StepVerdict {
  ok: boolean
  valid: boolean
  invalid_reason?: string
  /** The jitter the verdict used. */
  jitter_source: 'wire' | 'callers'
  failed_by: StepFailure[]
  jitter_clock: JitterClock | null
}

export function stepVerdict(f: StepFigures, limits: { jitterMs: number; lagMs: number }): StepVerdict {
  const failed: StepFailure[] = []
  if (f.live < f.sessions) failed.push('calls_lost')
  if (f.frames === 0) failed.push('no_frames')
  if (f.loopLagP99Ms >= limits.lagMs) failed.push('loop_lag')
  if (f.wire === 'off') {
    const over = f.callersJitterP99Ms >= limits.jitterMs
    if (over) failed.push('jitter')
    const clock: JitterClock | null = !over
      ? null
      : f.loopLagP99Ms >= Math.min(limits.lagMs, f.callersJitterP99Ms) / 2
        ? 'engine_loop_lag'
        : 'callers_receive_clock'
    return { ok: failed.length === 0, valid: true, jitter_source: 'callers', failed_by: failed, jitter_clock: clock }
  }
  if ('failed' in f.wire) {
    return {
      ok: false,
      valid: false,
      invalid_reason: `the wire capture could not run: ${f.wire.failed}`,
      jitter_source: 'wire',
      failed_by: [...failed, 'wire_capture_failed'],
      jitter_clock: null,
    }
  }
  if (f.wire.frames === 0 && f.frames > 0) {
    return {
      ok: false,
      valid: false,
      invalid_reason: `the wire capture saw no audio frames while the callers received ${f.frames}`,
      jitter_source: 'wire',
      failed_by: [...failed, 'wire_capture_failed'],
      jitter_clock: null,
    }
  }
  const wireOver = f.wire.jitterP99Ms >= limits.jitterMs
  if (wireOver) failed.push('jitter')
  let clock: JitterClock | null = null
  if (wireOver) clock = f.loopLagP99Ms >= Math.min(limits.lagMs, f.wire.jitterP99Ms) / 2 ? 'engine_loop_lag' : 'wire_capture'
  else if (f.callersJitterP99Ms >= limits.jitterMs) clock = 'callers_receive_clock'
  return { ok: failed.length === 0, valid: true, jitter_source: 'wire', failed_by: failed, jitter_clock: clock }
}

/** A verdict in a few words, for a log line, the report and the summary; a step recorded before verdicts existed reads ok/FAIL. */
export function describeVerdict(v: Pick<StepVerdict, 'ok'> & Partial<StepVerdict>): string {
  if (v.valid === false) return `INVALID: ${v.invalid_reason ?? 'not judged'}`
  if (v.ok) return v.jitter_clock === 'callers_receive_clock' ? 'ok (the callers read late: their own clock, not the engine)' : 'ok'
  if (!v.failed_by) return 'FAIL'
  const clock = v.jitter_clock ? `; jitter from the ${v.jitter_clock.replace(/_/g, ' ')}` : ''
  return `FAIL on ${v.failed_by.join(', ')} (jitter judged on the ${v.jitter_source === 'callers' ? "callers' receive clock" : 'wire capture'}${clock})`
}
