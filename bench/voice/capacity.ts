/**
 * Capacity: N concurrent talking calls, stepped up until output jitter or the engine's loop lag
 * fails (bench/README.md, "Voice figures"). Each step ramps up, settles, then measures a window:
 * the callers' jitter, the wire's (wire.ts; required unless --no-wire), the engine's loop lag, CPU,
 * RSS and VAD counters; verdict.ts judges it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { Caller, firstAudioAfter, listeningAfter, windowJitter, type FramePacer } from './caller.js'
import type { EngineChild } from './engine-child.js'
import type { CapacityStep } from './result.js'
import type { Org, Providers } from './setup.js'
import type { Line } from './utterances.js'
import { describeVerdict, stepVerdict } from './verdict.js'
import { startWireCapture, wireCaptureProblem, wireJitter, type WireCapture } from './wire.js'

export interface CapacityPlan {
  steps: number[]
  warmupMs: number
  windowMs: number
  /** Output jitter p99 and engine loop lag p99 limits of a sustained step. */
  jitterLimitMs: number
  lagLimitMs: number
  /**
   * Capture the engine's outgoing audio (tcpdump) and judge by its jitter; a step whose capture
   * cannot run is then invalid (verdict.ts). False (--no-wire): judge by the callers' jitter.
   */
  wireCapture: boolean
  /** Run every step even after one fails (`--all-steps`: memory and CPU at each load); capacity still stops at the first failure. */
  allSteps?: boolean
  log(msg: string): void
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const round = (x: number) => Math.round(x * 100) / 100

/** A caller that keeps taking turns until stopped: speak, wait for the reply to be heard, pause. */
export class TalkingCall {
  private stopped = false
  reported = false
  done: Promise<void> = Promise.resolve()
  constructor(
    readonly caller: Caller,
    private readonly providers: Providers,
    private readonly lines: Line[],
    private readonly seed: number,
  ) {}

  start(): void {
    this.done = this.loop().catch(() => {})
  }

  private async loop(): Promise<void> {
    const c = this.caller
    await c.event((e) => e.type === 'transcript' && e.role === 'agent' && e.final === true, 30_000, 0, 'greeting')
    await listeningAfter(c, c.lastAudioAt() ?? 0)
    for (let k = this.seed; !this.stopped && c.open; k++) {
      await sleep(300 + ((k * 211) % 600))
      if (this.stopped) return
      const line = this.lines[k % this.lines.length]!
      // The calls share the STT stand-in's script queue, so a call's speech may get another
      // call's words (or part of them, when a Finalize in a pause splits the utterance): the
      // reply does not depend on them (the LLM stand-in's fallback), so every turn weighs the same.
      this.providers.dg.script({ text: line.text, speechMs: line.speechMs })

      const u = await c.say(line.pcm, line.text)
      await c.until(() => firstAudioAfter(c.timeline, u.speechEndAt) !== null, 20_000, 'reply')
      await listeningAfter(c, firstAudioAfter(c.timeline, u.speechEndAt)!)
    }
  }

  stop(): void {
    this.stopped = true
  }
}

const p99 = (xs: number[]): number => {
  if (!xs.length) return 0
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)]!
}

export async function capacity(
  engine: EngineChild,
  org: Org,
  p: Providers,
  lines: Line[],
  reply: string,
  pacer: FramePacer,
  plan: CapacityPlan,
): Promise<CapacityStep[]> {
  const log = plan.log
  // Every request gets this reply, speculative ones included (see TalkingCall).
  p.llm.fallback({ text: reply })
  const steps: CapacityStep[] = []
  const calls: TalkingCall[] = []
  const benchLag = monitorEventLoopDelay({ resolution: 10 })
  benchLag.enable()
  const wireProblem = plan.wireCapture ? wireCaptureProblem() : null
  if (wireProblem) log(`ERROR: the capacity steps cannot be judged on the wire: ${wireProblem}. Each step is marked invalid.`)
  try {
    for (const n of plan.steps) {
      // Ramp up at about 25 calls a second so set-up does not land all at once.
      while (calls.length < n) {
        const batch = Math.min(5, n - calls.length)
        const added = await Promise.all(
          Array.from({ length: batch }, async () => new TalkingCall(await Caller.connect(await org.mint(), pacer), p, lines, calls.length * 7)),
        )
        for (const t of added) calls.push(t), t.start()
        await sleep(200)
      }
      await sleep(plan.warmupMs)
      // Arrivals from earlier steps are measured already: dropping them keeps the callers' heap small.
      const cut = performance.now() - plan.warmupMs
      for (const t of calls) t.caller.forgetAudioBefore(cut)
      const wire: WireCapture | { failed: string } | null = !plan.wireCapture
        ? null
        : wireProblem
          ? { failed: wireProblem }
          : await startWireCapture(engine.enginePort, path.join(os.tmpdir(), `ozan-voice-wire-${process.pid}-${n}.pcap`)).catch((e: Error) => ({
              failed: e.message,
            }))
      const s0 = await engine.sample()
      benchLag.reset()
      const from = performance.now()
      await sleep(plan.windowMs)
      const to = performance.now()
      const s = await engine.sample()
      const wireFrames =
        wire && 'stop' in wire
          ? await wire.stop().catch((e: Error) => ({ failed: `tcpdump failed to stop or its capture could not be read: ${e.message}` }))
          : null
      const wireJ = wireFrames && !('failed' in wireFrames) ? wireJitter(wireFrames) : null
      const live = calls.filter((t) => t.caller.open)
      for (const t of calls.filter((x) => !x.caller.open && !x.reported)) {
        t.reported = true
        const last = t.caller.timeline.events.filter((e) => e.event.type === 'ended' || e.event.type === 'error').map((e) => JSON.stringify(e.event))
        const tl = t.caller.timeline
        const after = tl.closed ? `${Math.round(tl.closed.at - tl.openedAt)} ms after opening` : ''
        log(
          `a call closed (${tl.closed?.code}${tl.error ? `, ${tl.error}` : ''}) ${after}, ${tl.events.length} events and ${tl.audio.length} audio messages kept: ${last.join(' ') || 'no ended event'}`,
        )
      }
      const jitter = live.flatMap((t) => windowJitter(t.caller.timeline, from, to))
      if (process.env.BENCH_VOICE_DUMP) {
        fs.writeFileSync(
          `${process.env.BENCH_VOICE_DUMP}-cap${n}.json`,
          JSON.stringify(live.slice(0, 4).map((t) => t.caller.timeline.audio.filter((a) => a.at >= from && a.at <= to))),
        )
        const inWindow = (at: number) => at >= from && at <= to
        fs.writeFileSync(
          `${process.env.BENCH_VOICE_DUMP}-cap${n}-providers.json`,
          JSON.stringify({
            tts: p.speech.requests
              .filter((r) => inWindow(r.receivedAt))
              .map((r) => ({ receivedAt: r.receivedAt, firstByteSentAt: r.firstByteSentAt, text: r.text })),
            llm: p.llm.requests.filter((r) => inWindow(r.receivedAt)).map((r) => ({ receivedAt: r.receivedAt, chunkSentAt: r.chunkSentAt })),
          }),
        )
      }
      const frames = jitter.length
      const benchP99 = Math.max(0, benchLag.percentile(99) / 1e6 - 10)
      const benchMax = Math.max(0, benchLag.max / 1e6 - 10)
      const vad = s.vad && s0.vad ? { windows: s.vad.windows - s0.vad.windows, runs: s.vad.runs - s0.vad.runs, gated: s.vad.gated - s0.vad.gated } : null
      const cpuPct = Math.round(((s.cpuMs - s0.cpuMs) / (to - from)) * 100)
      const step: CapacityStep = {
        sessions: n,
        jitter_p99_ms: round(p99(jitter)),
        wire_jitter_p99_ms: wireJ && wireJ.length ? round(p99(wireJ)) : null,
        loop_lag_p99_ms: round(s.lagP99Ms),
        rss_mb: round(s.rssMb),
        engine_cpu_pct: cpuPct,
        vad_gated_pct: vad ? Math.round((100 * vad.gated) / Math.max(1, vad.gated + vad.windows)) : null,
        ok: false,
      }
      const failedCapture = wire && 'failed' in wire ? wire : wireFrames && 'failed' in wireFrames ? wireFrames : null
      const verdict = stepVerdict(
        {
          sessions: n,
          live: live.length,
          frames,
          callersJitterP99Ms: step.jitter_p99_ms,
          loopLagP99Ms: step.loop_lag_p99_ms,
          benchLagP99Ms: round(benchP99),
          wire: !plan.wireCapture ? 'off' : (failedCapture ?? { jitterP99Ms: step.wire_jitter_p99_ms ?? 0, frames: wireJ?.length ?? 0 }),
        },
        { jitterMs: plan.jitterLimitMs, lagMs: plan.lagLimitMs },
      )
      Object.assign(step, verdict, { bench_lag_p99_ms: round(benchP99) })
      if (!verdict.valid) log(`ERROR: capacity step ${n} is invalid: ${verdict.invalid_reason}`)
      steps.push(step)
      const vadNote = vad ? `, vad ${vad.windows} windows in ${vad.runs} runs + ${vad.gated} gated` : ''
      log(
        `capacity ${n}: jitter p99 ${step.jitter_p99_ms} ms over ${frames} frames at the callers, ${!plan.wireCapture ? 'not captured (--no-wire)' : failedCapture ? 'NO WIRE CAPTURE' : `${step.wire_jitter_p99_ms ?? '—'} ms on the wire (${wireJ?.length ?? 0} frames)`}, engine lag p99 ${step.loop_lag_p99_ms} ms, rss ${step.rss_mb} MB, engine cpu ${cpuPct}% of its core, live ${live.length}/${n}, bench lag p99 ${round(benchP99)} / max ${round(benchMax)} ms${vadNote} → ${describeVerdict(verdict)}`,
      )
      if (benchP99 >= plan.lagLimitMs / 2)
        log(`warning: the bench process itself lags (p99 ${round(benchP99)} ms): jitter at ${n} sessions is partly the callers', not the engine's`)
      if (!step.ok && !plan.allSteps) break
    }
  } finally {
    benchLag.disable()
    for (const t of calls) t.stop()
    await Promise.all(calls.map((t) => t.caller.hangUp(3000).catch(() => 0)))
  }
  return steps
}
