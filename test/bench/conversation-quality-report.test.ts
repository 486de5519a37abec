import t from 'tap'
import { scoreRuns } from '../../bench/conversation-quality/score.js'
import type { SituationRun, SocketEvent } from '../../bench/conversation-quality/run-types.js'
import type { ConversationQualityResult } from '../../bench/conversation-quality/scores.js'
import { buildReport, type ReportInput } from '../../bench/voice/report.js'

const status = (at: number, s: string): SocketEvent => ({ at, event: { type: 'status', status: s } })
const frames = (from: number, to: number) => Array.from({ length: Math.floor((to - from) / 20) }, (_, i) => ({ at: from + i * 20, bytes: 640 }))

/** A barge-in whose agent audio last arrived `stopMs` after the onset (2000), then `clear`. */
function bargeIn(stopMs: number): SituationRun {
  return {
    id: `barge_in-${stopMs}`,
    type: 'barge_in',
    lang: 'tr',
    voice: 'tr',
    rateWpm: 210,
    lines: [
      { role: 'lead', text: 'bir masa', onsetAt: 0, endAt: 800, parts: [{ text: 'bir masa', onsetAt: 0, endAt: 800 }] },
      { role: 'event', text: 'bir dakika bekleyin', onsetAt: 2000, endAt: 2900, parts: [{ text: 'bir dakika bekleyin', onsetAt: 2000, endAt: 2900 }] },
    ],
    audio: [...frames(1000, 2000 + stopMs), { at: 2000 + stopMs, bytes: 640 }],
    events: [
      status(1000, 'speaking'),
      { at: 2600, event: { type: 'clear' } },
      { at: 2600, event: { type: 'transcript', role: 'agent', text: '', final: true, interrupted: true } },
    ],
    synthesis: [],
    engine: { bargeIn: ['pause', 'interrupt'], backchannels: [] },
  }
}

function pause(pauseMs: number, premature: boolean): SituationRun {
  const text = 'can you tell me your hours'
  return {
    id: `pause-${pauseMs}`,
    type: 'pause',
    lang: 'en',
    voice: 'en-us',
    rateWpm: 175,
    lines: [{ role: 'turn', text, onsetAt: 0, endAt: 2000, pauseMs, cue: 'neutral', parts: [] }],
    audio: frames(2600, 2800),
    events: premature
      ? [{ at: 1000, event: { type: 'transcript', role: 'user', text: 'can you tell me', final: true } }]
      : [{ at: 2400, event: { type: 'transcript', role: 'user', text, final: true } }],
    synthesis: [],
    engine: { bargeIn: [], backchannels: [] },
  }
}

function result(runs: SituationRun[]): ConversationQualityResult {
  return {
    scenario: 'conversation-quality',
    quick: true,
    duration_s: 40,
    machine: { cpus: 2, cpu_model: 'Test CPU', node: 'v20.0.0', platform: 'linux x64' },
    config: {
      seed: 1,
      corpus_dir: '/tmp/c',
      languages: ['en', 'tr'],
      voices: ['en-us', 'en-gb', 'tr'],
      rates_wpm: [140, 175, 210],
      turn_taking: 'platform defaults',
      stand_ins: { stt_final_ms: 250, llm_first_token_ms: 350, tts_first_byte_ms: 200, tts_ms_per_char: 20 },
    },
    ...scoreRuns(runs),
  }
}

function input(scenarios: Record<string, unknown>): ReportInput {
  return {
    stamp: '2026-01-01T00-00-00-000Z',
    quick: true,
    machine: { cpus: 2, cpu_model: 'Test CPU', node: 'v20.0.0', platform: 'linux x64' },
    scenarios,
    failed: {},
  }
}

const goal = (json: string, figure: string) =>
  (JSON.parse(json).goals as Array<{ scenario: string; figure: string; met: boolean | null; value: number | null }>).find((g) => g.figure === figure)!

t.test("the report's goals table reads the conversation-quality figures", async (t) => {
  const r = buildReport(input({ 'conversation-quality': result([bargeIn(120), bargeIn(290), pause(450, true), pause(900, false)]) }))
  t.match(goal(r.json, 'barge-ins honoured within 150 ms of onset'), { scenario: 'conversation-quality', value: 50, met: false })
  t.match(goal(r.json, 'premature end of turn, pauses ≤ 600 ms'), { value: 1, met: false })
  t.match(goal(r.json, 'backchannels ignored'), { value: null, met: null }, 'no backchannel scored: not measured')
  t.match(r.markdown, /\| conversation-quality \| barge-ins honoured within 150 ms of onset \| 50 % \| ≥ 95 % \| ❌ missed \|/)
  t.match(r.markdown, /## conversation-quality\n\nAgent turn-taking: platform defaults/)
  t.match(r.markdown, /\| barge-ins \| stop from speech onset \(ms\) \| p50 120, p95 290, max 290 \(n 2\) \|/)
  t.match(r.markdown, /\| pauses, by length \| premature end of turn \| 450 ms: 1\/1, 900 ms: 0\/1 \|/)
  t.match(r.svg, /barge-in stop from onset/)
  t.match(r.svg, /p95 goal 150/)
  t.notMatch(r.svg, /NaN|undefined/)
})

t.test('all goals met reads met; without the scenario, not measured and no extra chart row', async (t) => {
  const met = buildReport(input({ 'conversation-quality': result([bargeIn(100), pause(600, false)]) }))
  t.match(goal(met.json, 'barge-ins honoured within 150 ms of onset'), { value: 100, met: true })
  t.match(goal(met.json, 'premature end of turn, pauses ≤ 600 ms'), { value: 0, met: true })
  const none = buildReport(input({}))
  for (const figure of ['backchannels ignored', 'barge-ins honoured within 150 ms of onset', 'premature end of turn, pauses ≤ 600 ms']) {
    t.match(goal(none.json, figure), { value: null, met: null }, figure)
  }
  t.notMatch(none.svg, /barge-in stop from onset/)
  const longOnly = buildReport(input({ 'conversation-quality': result([pause(900, true)]) }))
  t.match(goal(longOnly.json, 'premature end of turn, pauses ≤ 600 ms'), { value: null, met: null }, 'no pause ≤ 600 ms scored')
})
