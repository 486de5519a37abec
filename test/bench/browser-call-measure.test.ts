import t from 'tap'
import { bargeInTimings, flushTimings, matchLines, outputHoles, type PageRecord, stretches, turnTimings, type Logged } from '../../bench/browser/measure.js'
import type { TapEdge } from '../../bench/browser/page-tap.js'
import { buildPlan, PLAN_RATE_HZ, type PlannedLine } from '../../bench/browser/plan.js'

// Synthetic pages at 1 kHz, so a frame is a millisecond and the page clock (receivedAt) can be set
// apart from the sample clock on purpose: the figures must each stay on their own clock.
const RATE = 1000
const edge = (input: TapEdge['input'], kind: TapEdge['kind'], frame: number, receivedAt = frame + 5000): TapEdge => ({ input, kind, frame, receivedAt })
const line = (kind: PlannedLine['kind'], text: string, startMs: number, endMs: number): PlannedLine => ({
  kind,
  text,
  speechMs: endMs - startMs,
  startMs,
  endMs,
})
const ev = (name: string, atMs: number, payload: unknown = {}): Logged => ({ name, atMs, payload })

t.test('buildPlan: lead silence, turns with their gaps, the opener and interruptions at their distance, replies by the words', async (t) => {
  const pcm = (ms: number) => new Int16Array((ms * PLAN_RATE_HZ) / 1000).fill(1000)
  const mk = (text: string, ms: number) => ({ text, pcm: pcm(ms), speechMs: ms })
  const plan = buildPlan(
    { turns: 3, bargeIns: 2, leadMs: 1000, turnGapMs: 2000, bargeAfterMs: 1500, tailMs: 500 },
    { turns: [mk('a', 500), mk('b', 700)], opener: mk('o', 400), interruption: mk('i', 600), closer: mk('c', 300), shortReply: 'S', longReply: 'L' },
  )
  t.same(
    plan.lines.map((l) => [l.kind, l.text, l.startMs, l.endMs]),
    [
      ['turn', 'a', 1000, 1500],
      ['turn', 'b', 3500, 4200],
      ['turn', 'a', 6200, 6700],
      ['opener', 'o', 8700, 9100],
      ['interruption', 'i', 10600, 11200],
      ['closer', 'c', 12700, 13000],
    ],
  )
  t.equal(plan.lastLineEndMs, 13000)
  t.equal(plan.pcm.length, (13500 * PLAN_RATE_HZ) / 1000, 'the tail silence follows the last line')
  t.equal(plan.pcm[(1000 * PLAN_RATE_HZ) / 1000 - 1], 0, 'silence up to the first line')
  t.equal(plan.pcm[(1000 * PLAN_RATE_HZ) / 1000], 1000, 'the first line where it says')
  t.same(
    [...plan.replies],
    [
      ['a', 'S'],
      ['b', 'S'],
      ['o', 'L'],
      ['i', 'L'],
      ['c', 'S'],
    ],
    'short replies to turns and the closer, long ones to be spoken over',
  )
  t.throws(() =>
    buildPlan(
      { turns: 1, bargeIns: 0, leadMs: 0, turnGapMs: 0, bargeAfterMs: 0, tailMs: 0 },
      { turns: [mk('a', 1)], opener: mk('o', 1), interruption: mk('i', 1), closer: mk('c', 1), shortReply: '', longReply: '' },
    ),
  )
})

t.test('stretches: edges paired in frame order; merged across short quiet only when asked', async (t) => {
  const edges = [edge('out', 'off', 200), edge('out', 'on', 100), edge('out', 'on', 250), edge('out', 'off', 400), edge('mic', 'on', 0), edge('out', 'on', 900)]
  t.same(
    stretches(edges, 'out', RATE).map((s) => [s.on, s.off]),
    [
      [100, 200],
      [250, 400],
      [900, null],
    ],
  )
  t.same(
    stretches(edges, 'out', RATE, 100).map((s) => [s.on, s.off, s.onAt, s.offAt]),
    [
      [100, 400, 5100, 5400],
      [900, null, 5900, null],
    ],
    '50 ms apart: one stretch',
  )
})

t.test('matchLines: each line at the plan distance from the last one found, within the tolerance', async (t) => {
  const lines = [line('turn', 'a', 1000, 1500), line('turn', 'b', 3500, 4000), line('turn', 'c', 6000, 6500)]
  const mic = [
    { on: 200, off: 700, onAt: 0, offAt: 0 },
    { on: 2650, off: 3100, onAt: 0, offAt: 0 }, // 50 ms late: drift
    { on: 4000, off: 4100, onAt: 0, offAt: 0 }, // a stray sound
    { on: 5270, off: 5700, onAt: 0, offAt: 0 }, // 2650 + 2500 + 120: within 150 ms of the previous one's place
  ]
  t.same(
    matchLines(lines, mic, RATE).map((s) => s?.on ?? null),
    [200, 2650, 5270],
  )
  t.same(
    matchLines(lines, mic.slice(0, 2), RATE).map((s) => s?.on ?? null),
    [200, 2650, null],
    'a line not heard is null',
  )
})

function turnPage(): { lines: PlannedLine[]; record: PageRecord } {
  const lines = [line('turn', 'hello there', 1000, 2000), line('turn', 'next one', 5000, 6000)]
  const edges = [
    edge('mic', 'on', 1000, 9000),
    { ...edge('mic', 'off', 2000, 9100), blockEnd: 2006 }, // the engine's rule ends it 6 ms later
    edge('out', 'on', 2810, 9200), // 810 ms after the speech end on the sample clock
    edge('out', 'off', 3000, 9250),
    edge('mic', 'on', 5000, 12000),
    edge('mic', 'off', 6000, 12100),
  ]
  const log = [
    ev('transcript', 9150, { role: 'user', text: 'hello there', final: true, turnId: 'turn-1' }),
    ev('metrics', 9300, { turnId: 'turn-0', voiceToVoiceMs: 1 }),
    ev('metrics', 9400, { turnId: 'turn-1', voiceToVoiceMs: 800 }),
  ]
  // The reply's first audio message 7 ms before the output sounded (page clock); older audio before the line is not it.
  return { lines, record: { rateHz: RATE, edges, agentAudioAt: [8000, 9193, 9194], log } }
}

t.test('turnTimings: mouth-to-ear on the sample clock, the engine v2v of the same turn, their difference, socket → output on the page clock', async (t) => {
  const { lines, record } = turnPage()
  const missed: string[] = []
  const timings = turnTimings(lines, matchLines(lines, stretches(record.edges, 'mic'), RATE), record, missed)
  t.same(timings, [{ text: 'hello there', mouth_to_ear_ms: 810, engine_v2v_ms: 800, library_added_ms: 10, playback_ms: 7, edge_gap_ms: 6 }])
  t.same(missed, ['turn 1 "next one": no agent audio at the output before the next line'])
})

t.test('turnTimings: no metrics for the turn reads null, never 0', async (t) => {
  const { lines, record } = turnPage()
  record.log = record.log.filter((e) => e.name !== 'metrics')
  const missed: string[] = []
  const [first] = turnTimings(lines, matchLines(lines, stretches(record.edges, 'mic'), RATE), record, missed)
  t.match(first, { mouth_to_ear_ms: 810, engine_v2v_ms: null, library_added_ms: null })
  t.match(missed[0], /no voice_to_voice_ms/)
})

t.test('bargeInTimings: onset → the lasting silence (phrase gaps bridged), split at the last audio message; the clear signed against it', async (t) => {
  const lines = [line('opener', 'open', 1000, 2000), line('interruption', 'wait', 4000, 5000), line('closer', 'sorry', 9000, 9500)]
  const edges = [
    edge('mic', 'on', 1000, 1000),
    edge('mic', 'off', 2000, 2300),
    edge('out', 'on', 2800, 2800),
    edge('out', 'off', 3500, 3500), // a 7 ms gap between two phrases: not the silence
    edge('out', 'on', 3507, 3507),
    edge('mic', 'on', 4000, 4001),
    edge('out', 'off', 4330, 4331), // silent 330 ms after the onset, 1 ms late on the page clock
    edge('mic', 'off', 5000, 5300),
    edge('mic', 'on', 9000, 9000), // the closer spoke into silence: no barge-in
    edge('mic', 'off', 9500, 9800),
  ]
  const log = [
    ev('clear', 5000),
    ev('transcript', 5001, { role: 'agent', text: 'Of course', final: true, turnId: 'turn-1', interrupted: true }),
    ev('metrics', 5002, { turnId: 'turn-1', bargeInStopMs: 1 }),
  ]
  const record: PageRecord = { rateHz: RATE, edges, agentAudioAt: [2790, 4200, 4261], log }
  const timings = bargeInTimings(lines, matchLines(lines, stretches(edges, 'mic'), RATE), record)
  t.same(timings, [
    { text: 'wait', over_agent: true, onset_to_silent_ms: 330, onset_to_last_audio_ms: 260, drain_ms: 70, clear_to_silent_ms: -669, engine_stop_ms: 1 },
    {
      text: 'sorry',
      over_agent: false,
      onset_to_silent_ms: null,
      onset_to_last_audio_ms: null,
      drain_ms: null,
      clear_to_silent_ms: null,
      engine_stop_ms: null,
    },
  ])
})

t.test('flushTimings: clear → the end of the sound playing at it (page clock), even when the next line starts within 100 ms', async (t) => {
  const edges = [edge('out', 'on', 0, 1000), edge('out', 'off', 600, 1604), edge('out', 'on', 670, 1674), edge('out', 'off', 900, 1902)]
  const record: PageRecord = { rateHz: RATE, edges, agentAudioAt: [], log: [] }
  t.same(flushTimings([1600, 1650, 3000], record), [
    { playing_at_clear: true, clear_to_silent_ms: 4 },
    { playing_at_clear: false, clear_to_silent_ms: null },
    { playing_at_clear: false, clear_to_silent_ms: null },
  ])
})

t.test('outputHoles: 10–300 ms of quiet not after a clear, with the socket’s longest wait around each', async (t) => {
  const edges = [
    edge('out', 'on', 0, 0),
    edge('out', 'off', 500, 500),
    edge('out', 'on', 507, 507), // 7 ms: a zero-padded phrase end
    edge('out', 'off', 1000, 1000),
    edge('out', 'on', 1080, 1080), // 80 ms: the socket waited 150 ms before it
    edge('out', 'off', 2000, 2000),
    edge('out', 'on', 2070, 2070), // 70 ms right after a clear: a flush and the next line
    edge('out', 'off', 2500, 2500),
    edge('out', 'on', 3000, 3000), // 500 ms: the agent not speaking
  ]
  const agentAudioAt = [760, 780, 800, 820, 840, 860, 880, 900, 920, 1070, 1071, 1072]
  const record: PageRecord = { rateHz: RATE, edges, agentAudioAt, log: [ev('clear', 1998)] }
  t.same(outputHoles(record), [{ at_ms: 1000, hole_ms: 80, socket_gap_ms: 150 }])
})
