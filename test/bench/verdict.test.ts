import t from 'tap'
import { buildReport } from '../../bench/voice/report.js'
import type { CapacityStep, VoiceBenchResult } from '../../bench/voice/result.js'
import { describeVerdict, stepVerdict, type StepFigures } from '../../bench/voice/verdict.js'

const LIMITS = { jitterMs: 10, lagMs: 20 }
const figures = (over: Partial<StepFigures> = {}): StepFigures => ({
  sessions: 100,
  live: 100,
  frames: 50_000,
  callersJitterP99Ms: 4,
  wire: { jitterP99Ms: 3, frames: 50_000 },
  loopLagP99Ms: 3,
  benchLagP99Ms: 2,
  ...over,
})

t.test('a step within every limit is ok, judged on the wire', async (t) => {
  t.same(stepVerdict(figures(), LIMITS), { ok: true, valid: true, jitter_source: 'wire', failed_by: [], jitter_clock: null })
})

t.test("the wire capture could not run: the step is invalid, never judged on the callers' clock", async (t) => {
  const v = stepVerdict(figures({ wire: { failed: 'tcpdump is not installed' } }), LIMITS)
  t.match(v, { ok: false, valid: false, invalid_reason: 'the wire capture could not run: tcpdump is not installed', failed_by: ['wire_capture_failed'] })
  t.match(describeVerdict(v), /^INVALID: the wire capture could not run: tcpdump is not installed$/)
  const blind = stepVerdict(figures({ wire: { jitterP99Ms: 0, frames: 0 } }), LIMITS)
  t.match(
    blind,
    { ok: false, valid: false, invalid_reason: /saw no audio frames while the callers received 50000/ },
    'a capture that saw nothing is no measurement',
  )
})

t.test('jitter over the limit: which clock it came from', async (t) => {
  // 200 calls of the issue: the callers measured 62.7 ms with the engine's loop lag at 3.4 ms.
  const benchOnly = stepVerdict(figures({ callersJitterP99Ms: 62.7, loopLagP99Ms: 3.4, benchLagP99Ms: 30, wire: { jitterP99Ms: 4.1, frames: 80_000 } }), LIMITS)
  t.match(benchOnly, { ok: true, jitter_clock: 'callers_receive_clock' }, 'on time on the wire: the bench read late, the step passes')
  const loop = stepVerdict(figures({ callersJitterP99Ms: 90, loopLagP99Ms: 25, wire: { jitterP99Ms: 82.2, frames: 80_000 } }), LIMITS)
  t.match(loop, { ok: false, failed_by: ['loop_lag', 'jitter'], jitter_source: 'wire', jitter_clock: 'engine_loop_lag' })
  t.match(describeVerdict(loop), 'FAIL on loop_lag, jitter (jitter judged on the wire capture; jitter from the engine loop lag)')
  const afterLoop = stepVerdict(figures({ callersJitterP99Ms: 15, loopLagP99Ms: 2, wire: { jitterP99Ms: 12, frames: 80_000 } }), LIMITS)
  t.match(afterLoop, { ok: false, failed_by: ['jitter'], jitter_clock: 'wire_capture' }, 'late on the wire with the loop on time')
})

t.test("--no-wire: the callers' figure decides and is named as such", async (t) => {
  t.match(stepVerdict(figures({ wire: 'off', callersJitterP99Ms: 14 }), LIMITS), {
    ok: false,
    valid: true,
    jitter_source: 'callers',
    failed_by: ['jitter'],
    jitter_clock: 'callers_receive_clock',
  })
  t.match(stepVerdict(figures({ wire: 'off', callersJitterP99Ms: 14, loopLagP99Ms: 9 }), LIMITS), { jitter_clock: 'engine_loop_lag' })
  t.match(stepVerdict(figures({ wire: 'off' }), LIMITS), { ok: true, jitter_clock: null })
})

t.test('lost calls and no frames fail a step whatever the jitter', async (t) => {
  t.match(stepVerdict(figures({ live: 99 }), LIMITS), { ok: false, failed_by: ['calls_lost'] })
  t.match(stepVerdict(figures({ frames: 0, wire: { jitterP99Ms: 0, frames: 0 } }), LIMITS), { ok: false, valid: true, failed_by: ['no_frames'] })
})

function voiceWith(steps: CapacityStep[], sessionsPerCore: number): VoiceBenchResult {
  const d = { n: 0, p50: 0, p95: 0, p99: 0, mean: 0, min: 0, max: 0 }
  return {
    scenario: 'voice-calls',
    quick: true,
    machine: { cpus: 2, cpu_model: 'Test CPU', node: 'v20.0.0', platform: 'linux' },
    config: {
      end_of_turn_wait_ms: 300,
      preemptive: true,
      stt_final: { p50: 250, p95: 300 },
      llm_first_token: { p50: 300, p95: 500 },
      llm_tokens_per_s: 50,
      tts_first_byte: { p50: 150, p95: 250 },
      languages: ['en'],
      room_dbfs: -80,
    },
    latency: { turns: 0, voice_to_voice_ms: d, engine_added_ms: d, provider_sum_ms: d, samples: { voice_to_voice_ms: [], engine_added_ms: [] } },
    barge_in: { count: 0, stop_ms: d, engine_stop_ms: d, samples: { stop_ms: [], engine_stop_ms: [] } },
    capacity: { pinned_core: 1, steps, sessions_per_core: sessionsPerCore },
    memory: { rss_per_session_mb: 0, baseline_rss_mb: 100 },
  }
}
const report = (v: VoiceBenchResult) =>
  buildReport({
    stamp: 's',
    quick: true,
    machine: { cpus: 2, cpu_model: 'Test CPU', node: 'v20.0.0', platform: 'linux' },
    scenarios: { 'voice-calls': v },
    failed: {},
  })
const sessionsGoal = (json: string) =>
  (JSON.parse(json).goals as Array<{ figure: string; value: number | null; met: boolean | null }>).find((g) => g.figure === 'sessions per core')!

t.test('the report: an invalid step says why and is not a measurement; a failing one names its jitter clock', async (t) => {
  const invalid: CapacityStep = {
    sessions: 10,
    jitter_p99_ms: 3,
    wire_jitter_p99_ms: null,
    loop_lag_p99_ms: 2,
    rss_mb: 120,
    ...stepVerdict(figures({ sessions: 10, live: 10, wire: { failed: 'tcpdump is not installed' } }), LIMITS),
  }
  const r = report(voiceWith([invalid], 0))
  t.match(r.markdown, /- 10 sessions: INVALID: the wire capture could not run: tcpdump is not installed\./)
  t.match(sessionsGoal(r.json), { value: null, met: null }, 'no valid step: capacity not measured')
  t.match(r.svg, /fill="#888"><title>10 sessions: invalid \(the wire capture could not run: tcpdump is not installed\)/)
  const ok: CapacityStep = {
    sessions: 100,
    jitter_p99_ms: 4,
    wire_jitter_p99_ms: 3,
    loop_lag_p99_ms: 3,
    rss_mb: 200,
    ...stepVerdict(figures(), LIMITS),
    bench_lag_p99_ms: 2,
  }
  const failing: CapacityStep = {
    sessions: 200,
    jitter_p99_ms: 90,
    wire_jitter_p99_ms: 82.2,
    loop_lag_p99_ms: 25,
    rss_mb: 300,
    bench_lag_p99_ms: 31,
    ...stepVerdict(figures({ sessions: 200, live: 200, callersJitterP99Ms: 90, loopLagP99Ms: 25, wire: { jitterP99Ms: 82.2, frames: 80_000 } }), LIMITS),
  }
  const f = report(voiceWith([ok, failing], 100))
  t.match(
    f.markdown,
    /- 200 sessions: FAIL on loop_lag, jitter \(jitter judged on the wire capture; jitter from the engine loop lag\) \(bench process's own loop lag p99 31 ms\)\./,
  )
  t.notMatch(f.markdown, /- 100 sessions/, 'ok steps get no line')
  t.match(sessionsGoal(f.json), { value: 100, met: true })
  t.match(f.svg, /200 sessions: over the limit, jitter from the engine loop lag/)
})
