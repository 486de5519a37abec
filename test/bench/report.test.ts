import t from 'tap'
import { buildReport, type ReportInput } from '../../bench/voice/report.js'
import type { Distribution, VoiceBenchResult } from '../../bench/voice/result.js'

const d = (p50: number, p95: number, p99 = p95, n = 40): Distribution => ({ n, p50, p95, p99, mean: p50, min: p50 / 2, max: p99 + 1 })
const EMPTY: Distribution = { n: 0, p50: 0, p95: 0, p99: 0, mean: 0, min: 0, max: 0 }

function voice(over: Partial<VoiceBenchResult> = {}): VoiceBenchResult {
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
      languages: ['en', 'tr'],
      room_dbfs: -80,
    },
    latency: {
      turns: 40,
      voice_to_voice_ms: d(620, 900),
      engine_added_ms: d(3.2, 12.5, 14),
      provider_sum_ms: d(700, 1000),
      samples: { voice_to_voice_ms: [], engine_added_ms: [] },
    },
    barge_in: { count: 10, stop_ms: d(180, 240, 250, 10), engine_stop_ms: d(4, 11, 12, 10), samples: { stop_ms: [], engine_stop_ms: [] } },
    capacity: {
      pinned_core: 1,
      steps: [
        { sessions: 50, jitter_p99_ms: 2, loop_lag_p99_ms: 4, rss_mb: 150, ok: true },
        { sessions: 100, jitter_p99_ms: 4, loop_lag_p99_ms: 9, rss_mb: 250, ok: true },
        { sessions: 150, jitter_p99_ms: 14, wire_jitter_p99_ms: 8.5, loop_lag_p99_ms: 30, rss_mb: 350, engine_cpu_pct: 97, vad_gated_pct: 71, ok: false },
      ],
      sessions_per_core: 100,
    },
    memory: { rss_per_session_mb: 2, baseline_rss_mb: 50 },
    ...over,
  }
}

function input(scenarios: Record<string, unknown>, failed: Record<string, string> = {}): ReportInput {
  return {
    stamp: '2026-01-01T00-00-00-000Z',
    quick: true,
    machine: { cpus: 2, cpu_model: 'Test CPU', node: 'v20.0.0', platform: 'linux x64' },
    scenarios,
    failed,
  }
}

const goal = (json: string, figure: string) =>
  (JSON.parse(json).goals as Array<{ figure: string; met: boolean | null; value: number | null }>).find((g) => g.figure === figure)!

t.test('a synthetic voice result: each goal read from its figure', async (t) => {
  const r = buildReport(input({ 'voice-calls': voice() }))
  t.match(goal(r.json, 'engine-added p50'), { value: 3.2, met: true })
  t.match(goal(r.json, 'engine-added p95'), { value: 12.5, met: true })
  t.match(goal(r.json, 'barge-in engine part p95'), { value: 11, met: false })
  t.match(goal(r.json, 'sessions per core'), { value: 100, met: true })
  t.match(goal(r.json, 'RSS per session'), { value: 2, met: true })
  t.match(goal(r.json, 'voice-to-voice p50 (preemptive)'), { value: 620, met: true })
  const parsed = JSON.parse(r.json)
  t.match(parsed, { report: 'ozan-bench', quick: true, machine: { cpus: 2, cpu_model: 'Test CPU' }, scenarios: { 'voice-calls': { scenario: 'voice-calls' } } })
})

t.test('a missing scenario or figure is "not measured", never met', async (t) => {
  const r = buildReport(input({ 'voice-calls': voice({ config: { ...voice().config, preemptive: false } }) }))
  for (const figure of [
    'authenticated GET req/s ÷ bare',
    'deliveries per second',
    'event → arrival p99',
    'search p95 at 100k chunks',
    'voice-to-voice p50 (preemptive)',
  ]) {
    t.match(goal(r.json, figure), { value: null, met: null }, figure)
  }
  const empty = buildReport(
    input({
      'voice-calls': voice({ latency: { ...voice().latency, engine_added_ms: EMPTY }, capacity: { pinned_core: null, steps: [], sessions_per_core: 0 } }),
    }),
  )
  t.match(goal(empty.json, 'engine-added p50'), { met: null }, 'n 0: its zeros are not a measurement')
  t.match(goal(empty.json, 'sessions per core'), { met: null }, 'no capacity steps')
  t.match(goal(empty.json, 'RSS per session'), { met: null }, 'no steps to fit a slope over')
  const oneStep = voice({
    capacity: { pinned_core: 1, steps: [voice().capacity.steps[2]!], sessions_per_core: 0 },
    memory: { rss_per_session_mb: 0, baseline_rss_mb: 350 },
  })
  t.match(goal(buildReport(input({ 'voice-calls': oneStep })).json, 'RSS per session'), { value: null, met: null }, 'one step: its 0 MB slope is a placeholder')
  t.match(goal(buildReport(input({ 'voice-calls': oneStep })).json, 'sessions per core'), { value: 0, met: false }, 'one failing step is a measurement')
  const none = buildReport(input({}))
  t.ok(JSON.parse(none.json).goals.every((g: { met: unknown }) => g.met === null))
  t.notMatch(none.markdown, /✅/)
  t.match(none.svg, /not measured/)
})

t.test("the other scenarios' goals come from the fields they print", async (t) => {
  const r = buildReport(
    input({
      'rest-auth-get': { ratio_rps: 0.84, ratio_p99: 1.2, bare: { rps: 20000, p99_ms: 4 }, ozan: { rps: 16800, p99_ms: 4.8 } },
      webhooks: { throughput: { deliveries_per_s: 1818 }, latency_ms: { p50: 3.1, p95: 12, p99: 60 } },
      'knowledge-search': {
        sizes: [
          { chunks: 10000, p50_ms: 0.4, p95_ms: 1 },
          { chunks: 100000, p50_ms: 1.5, p95_ms: 4.2, p99_ms: 6 },
        ],
      },
    }),
  )
  t.match(goal(r.json, 'authenticated GET req/s ÷ bare'), { value: 0.84, met: true })
  t.match(goal(r.json, 'deliveries per second'), { value: 1818, met: true })
  t.match(goal(r.json, 'event → arrival p99'), { value: 60, met: false })
  t.match(goal(r.json, 'search p95 at 100k chunks'), { value: 4.2, met: true })
  const normalize = buildReport(input({ 'text-normalize': { all: { p50_ms: 0.005, p99_ms: 0.019 } } }))
  t.match(goal(normalize.json, 'speech normalization p99 per phrase'), { value: 0.019, met: true })
  t.match(goal(r.json, 'speech normalization p99 per phrase'), { value: null, met: null }, 'not run: not measured')
  const quickKb = buildReport(input({ 'knowledge-search': { sizes: [{ chunks: 20000, p95_ms: 1 }] } }))
  t.match(goal(quickKb.json, 'search p95 at 100k chunks'), { met: null }, 'a quick run never reaches 100k chunks')
})

t.test('markdown: machine, goals table, per-scenario tables, failures', async (t) => {
  const r = buildReport(
    input(
      { 'voice-calls': voice(), webhooks: { throughput: { deliveries_per_s: 1200 }, latency_ms: { p50: 3, p95: 10, p99: 20 } } },
      { 'rest-auth-get': 'exit 1' },
    ),
  )
  t.match(r.markdown, /Machine: 2 × Test CPU, Node v20\.0\.0, linux x64\./)
  t.match(r.markdown, /\| voice-calls \| engine-added p50 \| 3\.2 ms \| ≤ 5 ms \| ✅ met \|/)
  t.match(r.markdown, /\| voice-calls \| barge-in engine part p95 \| 11 ms \| ≤ 10 ms \| ❌ missed \|/)
  t.match(r.markdown, /\| rest-auth-get \| authenticated GET req\/s ÷ bare \| — \| ≥ 0\.8 \| not measured \|/)
  t.match(r.markdown, /## rest-auth-get\n\n\*\*Failed:\*\* exit 1/)
  t.match(r.markdown, /\| engine-added \| 40 \| 3\.2 \| 12\.5 \| 14 \|/)
  t.match(r.markdown, /\*\*100 sessions per core\*\*/)
  t.match(r.markdown, /\| 150 \| 8\.5 \| 14 \| 30 \| 97 \| 71 \| 350 \| no \|/)
  t.match(r.markdown, /room noise -80 dBFS/)
  t.match(r.markdown, /\| deliveries\/s \(burst\) \| 1200 \|/)
})

t.test('svg: well-formed, one box per distribution, capacity points coloured by ok', async (t) => {
  const r = buildReport(input({ 'voice-calls': voice() }))
  t.match(r.svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  t.ok(r.svg.trimEnd().endsWith('</svg>'))
  t.equal(r.svg.match(/<rect x=/g)?.length, 4 + 1, 'four boxes and the capacity frame')
  t.equal(r.svg.match(/<circle /g)?.length, 3)
  t.equal(r.svg.match(/fill="#de2d26"/g)?.length, 1, 'the one failing step in red')
  t.notMatch(r.svg, /NaN|undefined/)
  const tags = (r.svg.match(/<(\w+)[\s>]/g) ?? []).length
  t.ok(tags > 20)
  t.equal((r.svg.match(/<text/g) ?? []).length, (r.svg.match(/<\/text>/g) ?? []).length, 'every text closed')
})

t.test('sip-calls: calls per core against web calls of the same run, setup, jitter, memory, and its table', async (t) => {
  const step = (sessions: number, ok: boolean, jitter: number) => ({
    sessions,
    jitter_p99_ms: jitter,
    wire_jitter_p99_ms: jitter,
    loop_lag_p99_ms: 3,
    rss_mb: 200 + sessions,
    engine_cpu_pct: sessions / 2,
    setup_ms: d(8, 20),
    streams: sessions,
    failed_calls: ok ? 0 : 2,
    ok,
    ...(ok ? {} : { valid: true, jitter_source: 'wire', failed_by: ['calls_lost', 'jitter'], jitter_clock: 'wire_capture' }),
  })
  const sip = {
    scenario: 'sip-calls',
    quick: false,
    config: { codec: 'PCMU', ptime_ms: 20, calls_per_second: 20, end_of_turn_wait_ms: 300, warmup_ms: 5000, window_ms: 10000, rtp_io: 'worker' },
    capacity: { pinned_core: 1, steps: [step(50, true, 2), step(100, true, 3.5), step(150, false, 12)], calls_per_core: 100 },
    setup_ms: d(8, 20, 31),
    rtp_send_jitter_p99_ms: 3.5,
    memory: { rss_per_call_mb: 1, baseline_rss_mb: 200 },
  }
  const alone = buildReport(input({ 'sip-calls': sip }))
  t.match(goal(alone.json, 'calls per core'), { value: 100, met: false }, 'without web calls in the run: against the last measured 150')
  t.match(goal(alone.json, 'RSS per call'), { value: 1, met: true })
  t.match(goal(alone.json, 'call setup (INVITE → 200 OK) p95'), { value: 20, met: true })
  t.match(goal(alone.json, 'RTP send jitter p99 at capacity'), { value: 3.5, met: true })
  const both = buildReport(input({ 'sip-calls': sip, 'voice-calls': voice() }))
  t.match(goal(both.json, 'calls per core'), { value: 100, met: true }, 'web calls reached 100 in this run')
  t.match(alone.markdown, /\*\*100 calls per core\*\*/)
  t.match(alone.markdown, /\| 150 \| 12 \| 150 \| 8 \| 20 \| 3 \| 75 \| 350 \| 2 \| no \|/)
  t.match(alone.markdown, /- 150 calls: FAIL on calls_lost, jitter/)
  const invalid = buildReport(input({ 'sip-calls': { ...sip, capacity: { ...sip.capacity, steps: [{ ...step(50, false, 0), valid: false }] } } }))
  t.match(goal(invalid.json, 'calls per core'), { value: null, met: null }, 'no judged step: not measured')
})
