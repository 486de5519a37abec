/**
 * The sip-calls capacity steps: for each N, SIPp places N calls (at `rate` a second), each talking
 * on a loop; once all are up and settled, a window is measured: RTP send jitter on the wire and
 * call setup (wire.ts), the engine's loop lag, CPU and RSS. Then the calls hang up and the next
 * step starts from none. A step passes under the web calls' criteria (bench/voice/verdict.ts):
 * every call completes, jitter p99 < 10 ms on the wire and loop lag p99 < 20 ms.
 */
import os from 'node:os'
import path from 'node:path'
import type { EngineChild } from '../voice/engine-child.js'
import { distribution } from '../voice/metrics.js'
import { describeVerdict, stepVerdict } from '../voice/verdict.js'
import { wireCaptureProblem } from '../voice/wire.js'
import { startLoad } from './load.js'
import type { SipCapacityStep } from './result.js'
import { rtpJitter, startSipCapture, type SipWire } from './wire.js'

export interface SipCapacityPlan {
  steps: number[]
  rate: number
  greetMs: number
  warmupMs: number
  windowMs: number
  jitterLimitMs: number
  lagLimitMs: number
  rtpMin: number
  rtpMax: number
  /** SIPp's first RTP port (outside the engine's range). */
  callerMediaPort: number
  allSteps: boolean
  log(msg: string): void
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const round = (x: number) => Math.round(x * 100) / 100
const p99 = (xs: number[]): number => distribution(xs).p99

/** The steps, and each step's setup times (ms, by its call count) for the run's overall figure. */
export async function sipCapacity(
  engine: EngineChild,
  number: string,
  audio: Buffer,
  plan: SipCapacityPlan,
): Promise<{ steps: SipCapacityStep[]; setupMs: Map<number, number[]> }> {
  const problem = wireCaptureProblem()
  if (problem) throw new Error(`the sip-calls bench measures on the wire and cannot capture here: ${problem}`)
  const steps: SipCapacityStep[] = []
  const setupMs = new Map<number, number[]>()
  for (const n of plan.steps) {
    const rampMs = (n / plan.rate) * 1000
    const dir = path.join(os.tmpdir(), `ozan-sip-bench-${process.pid}-${n}`)
    const capture = await startSipCapture({ sipPort: engine.sipPort!, rtpMin: plan.rtpMin, rtpMax: plan.rtpMax, file: `${dir}.pcap` })
    const load = await startLoad({
      dir,
      target: `127.0.0.1:${engine.sipPort}`,
      number,
      calls: n,
      rate: plan.rate,
      greetMs: plan.greetMs,
      // The first call still talks when the window ends.
      holdMs: rampMs + plan.warmupMs + plan.windowMs + 1000,
      audio,
      mediaPort: plan.callerMediaPort,
    })
    let wire: SipWire | { failed: string }
    let s0
    let s
    let from: number
    let to: number
    try {
      await sleep(rampMs + plan.greetMs + plan.warmupMs)
      s0 = await engine.sample()
      from = Date.now()
      await sleep(plan.windowMs)
      to = Date.now()
      s = await engine.sample()
      wire = await capture.stop().catch((e: Error) => ({ failed: e.message }))
    } catch (e) {
      load.kill()
      throw e
    }
    const outcome = await load.done
    const jitter = 'failed' in wire ? [] : rtpJitter(wire.rtp, from, to)
    const streams = 'failed' in wire ? 0 : [...wire.rtp.values()].filter((ats) => ats.some((at) => at >= from && at <= to)).length
    const setup = 'failed' in wire ? [] : wire.setupMs
    setupMs.set(n, setup)
    const failedCalls = outcome.failed + Math.max(0, n - outcome.successful - outcome.failed)
    const cpuPct = Math.round(((s.cpuMs - s0.cpuMs) / (to - from)) * 100)
    const verdict = stepVerdict(
      {
        sessions: n,
        live: n - failedCalls,
        frames: jitter.length,
        // No callers' clock here: SIPp does not time what it receives; the wire is the only figure.
        callersJitterP99Ms: 0,
        loopLagP99Ms: s.lagP99Ms,
        benchLagP99Ms: 0,
        wire: 'failed' in wire ? wire : { jitterP99Ms: p99(jitter), frames: jitter.length },
      },
      { jitterMs: plan.jitterLimitMs, lagMs: plan.lagLimitMs },
    )
    const step: SipCapacityStep = {
      sessions: n,
      jitter_p99_ms: round(p99(jitter)),
      wire_jitter_p99_ms: round(p99(jitter)),
      loop_lag_p99_ms: round(s.lagP99Ms),
      loop_lag_max_ms: round(s.lagMaxMs),
      rss_mb: round(s.rssMb),
      engine_cpu_pct: cpuPct,
      vad_gated_pct:
        s.vad && s0.vad ? Math.round((100 * (s.vad.gated - s0.vad.gated)) / Math.max(1, s.vad.gated - s0.vad.gated + s.vad.windows - s0.vad.windows)) : null,
      setup_ms: distribution(setup),
      streams,
      failed_calls: failedCalls,
      ...verdict,
    }
    steps.push(step)
    plan.log(
      `capacity ${n}: RTP send jitter p99 ${step.jitter_p99_ms} ms over ${jitter.length} packets from ${streams} streams, setup p50/p95 ${round(step.setup_ms.p50)}/${round(step.setup_ms.p95)} ms (${setup.length} calls${'failed' in wire ? '' : `, ${wire.unanswered} unanswered`}), engine lag p99 ${step.loop_lag_p99_ms} / max ${step.loop_lag_max_ms} ms, rss ${step.rss_mb} MB, cpu ${cpuPct}%, failed calls ${failedCalls}${outcome.code !== 0 ? ` (SIPp exit ${outcome.code})` : ''} → ${describeVerdict(verdict)}`,
    )
    if (failedCalls > 0) plan.log(`SIPp's errors at ${n} calls:\n${outcome.errors.split('\n').slice(-15).join('\n')}`)
    if (!step.ok && !plan.allSteps) break
  }
  return { steps, setupMs }
}
