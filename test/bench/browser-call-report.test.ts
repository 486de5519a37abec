import t from 'tap'
import type { BrowserCallResult } from '../../bench/browser/result.js'
import { buildReport, type ReportInput } from '../../bench/voice/report.js'
import type { Distribution } from '../../bench/voice/result.js'

const d = (p50: number, p95: number, n = 14): Distribution => ({ n, p50, p95, p99: p95, mean: p50, min: p50 - 3, max: p95 + 1 })
const EMPTY: Distribution = { n: 0, p50: 0, p95: 0, p99: 0, mean: 0, min: 0, max: 0 }

function browser(over: Partial<BrowserCallResult> = {}): BrowserCallResult {
  return {
    scenario: 'browser-call',
    quick: false,
    machine: { cpus: 2, cpu_model: 'Test CPU', node: 'v20.0.0', platform: 'linux x64', chromium: 'Chromium 156.0' },
    config: {
      end_of_turn_wait_ms: 300,
      preemptive: true,
      stt_final: { p50: 250, p95: 300 },
      stt_interim_ms: 1000,
      llm_first_token: { p50: 350, p95: 600 },
      tts_first_byte: { p50: 200, p95: 300 },
      tts_ms_per_char: 12,
      turns: 14,
      barge_ins: 6,
      flushes: 8,
      sample_rate_hz: 44_100,
      tap: { mic_threshold: 0.00316, mic_hold_ms: 300, mic_block_dbfs: -53, out_threshold: 0.001, out_hold_ms: 2 },
    },
    mouth_to_ear: {
      turns: 14,
      missed: [],
      mouth_to_ear_ms: d(787, 1092),
      engine_v2v_ms: d(782, 1079),
      library_added_ms: d(5.5, 13.4),
      playback_ms: d(6.9, 12.2),
      rest_ms: d(-2.3, 3.3),
      edge_gap_ms: d(3, 7),
      samples: [],
    },
    barge_in: {
      n: 6,
      honoured: 6,
      over_agent: 6,
      onset_to_silent_ms: d(337, 405, 6),
      onset_to_last_audio_ms: d(254, 322, 6),
      drain_ms: d(78, 86, 6),
      clear_to_silent_ms: d(-663, -615, 6),
      engine_stop_ms: d(1, 1, 6),
      samples: [],
    },
    flush: { n: 8, clear_to_silent_ms: d(4.7, 9.1, 8), samples: [] },
    stats: {
      playback_underruns: 0,
      playback_underruns_in_flushes: 0,
      output_holes: [{ at_ms: 820.3, hole_ms: 80.6, socket_gap_ms: 157.5 }],
      caller_frames_dropped: 0,
      frames_sent: 5336,
      agent_bytes_received: 640_000,
      playback_overflow_ms: 0,
    },
    duration_s: 111,
    ...over,
  }
}

function input(scenarios: Record<string, unknown>): ReportInput {
  return {
    stamp: '2026-01-01T00-00-00-000Z',
    quick: false,
    machine: { cpus: 2, cpu_model: 'Test CPU', node: 'v20.0.0', platform: 'linux x64' },
    scenarios,
    failed: {},
  }
}

const goal = (json: string, figure: string) =>
  (JSON.parse(json).goals as Array<{ scenario: string; figure: string; met: boolean | null; value: number | null }>).find(
    (g) => g.scenario === 'browser-call' && g.figure === figure,
  )!
const ADDED = 'library-added p95 (mouth-to-ear − engine v2v)'
const FLUSH = 'clear → output silent p95 (flush)'

t.test('the library-added goal is its p95 against 30 ms, the flush goal its p95 against 50 ms', async (t) => {
  const met = buildReport(input({ 'browser-call': browser() }))
  t.match(goal(met.json, ADDED), { value: 13.4, met: true })
  t.match(goal(met.json, FLUSH), { value: 9.1, met: true })
  const atLimits = browser({
    mouth_to_ear: { ...browser().mouth_to_ear, library_added_ms: d(20, 30) },
    flush: { n: 8, clear_to_silent_ms: d(30, 50, 8), samples: [] },
  })
  t.match(goal(buildReport(input({ 'browser-call': atLimits })).json, ADDED), { value: 30, met: true }, '30 ms is within the goal')
  t.match(goal(buildReport(input({ 'browser-call': atLimits })).json, FLUSH), { value: 50, met: true }, '50 ms is within the goal')
  const over = browser({
    mouth_to_ear: { ...browser().mouth_to_ear, library_added_ms: d(12, 30.5) },
    flush: { n: 8, clear_to_silent_ms: d(30, 62, 8), samples: [] },
  })
  t.match(goal(buildReport(input({ 'browser-call': over })).json, ADDED), { value: 30.5, met: false })
  t.match(goal(buildReport(input({ 'browser-call': over })).json, FLUSH), { value: 62, met: false })
})

t.test('the barge-ins’ clear → silent (silent before the clear) never stands in for the flush goal', async (t) => {
  const noFlush = browser({ flush: { n: 0, clear_to_silent_ms: EMPTY, samples: [] } })
  t.match(
    goal(buildReport(input({ 'browser-call': noFlush })).json, FLUSH),
    { value: null, met: null },
    'no flush measured: not measured, its zeros are no figure',
  )
})

t.test('not run, failed, or no turns timed: not measured, never met', async (t) => {
  for (const g of [ADDED, FLUSH]) t.match(goal(buildReport(input({})).json, g), { value: null, met: null }, `${g}, scenario absent`)
  const noTurns = browser({ mouth_to_ear: { ...browser().mouth_to_ear, library_added_ms: EMPTY } })
  t.match(goal(buildReport(input({ 'browser-call': noTurns })).json, ADDED), { value: null, met: null })
  t.match(goal(buildReport(input({ 'browser-call': { scenario: 'browser-call' } })).json, ADDED), { value: null, met: null }, 'a JSON without the figure')
})

t.test('markdown: the goal rows and the scenario table; svg: two more boxes with their goals', async (t) => {
  const r = buildReport(input({ 'browser-call': browser() }))
  t.match(r.markdown, /\| browser-call \| library-added p95 \(mouth-to-ear − engine v2v\) \| 13\.4 ms \| ≤ 30 ms \| ✅ met \|/)
  t.match(r.markdown, /\| browser-call \| clear → output silent p95 \(flush\) \| 9\.1 ms \| ≤ 50 ms \| ✅ met \|/)
  t.match(r.markdown, /## browser-call\n\nChromium 156\.0, AudioContext at 44100 Hz/)
  t.match(r.markdown, /\| library adds \(mouth-to-ear − engine\) \| 14 \| 5\.5 \| 13\.4 \| 14\.4 \|/)
  t.match(r.markdown, /\| barge-in: clear → output silent \(negative: silent before\) \| 6 \| -663 \| -615 \| -614 \|/)
  t.match(r.markdown, /caller frames dropped 0 of 5336 sent/)
  t.match(r.markdown, /Holes in the output: 1 \(at 820 ms: 80\.6 ms quiet, the socket waited 157\.5 ms\)/)
  t.match(r.svg, /browser: library adds/)
  t.match(r.svg, /p95 goal 30\.0/)
  t.match(r.svg, /p95 goal 50\.0/)
  t.notMatch(r.svg, /NaN|undefined/)
  const partial = buildReport(input({ 'browser-call': { scenario: 'browser-call' } }))
  t.match(partial.markdown, /\| library adds \(mouth-to-ear − engine\) \| 0 \| — \| — \| — \|/, 'a JSON missing its figures reads dashes')
})
