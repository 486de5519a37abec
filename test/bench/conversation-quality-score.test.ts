import t from 'tap'
import { heardWordCount, scoreRuns, scoreSituation, wordsHeard } from '../../bench/conversation-quality/score.js'
import type { SituationRun, SocketEvent, SpokenLine } from '../../bench/conversation-quality/run-types.js'

// Synthetic timelines on one clock (ms). The agent's reply starts at 1000 and its audio arrives as
// 20 ms frames (640 bytes) every 20 ms; the caller's event starts at ONSET.
const ONSET = 2000
const REPLY = 'One two three. Four five six seven.'
const PHRASES = [
  { text: 'One two three.', toneMs: 700 },
  { text: 'Four five six seven.', toneMs: 1000 },
]

const status = (at: number, s: string): SocketEvent => ({ at, event: { type: 'status', status: s } })
const agentFinal = (at: number, text: string, interrupted = false): SocketEvent => ({
  at,
  event: { type: 'transcript', role: 'agent', text, final: true, interrupted },
})
const userFinal = (at: number, text: string): SocketEvent => ({ at, event: { type: 'transcript', role: 'user', text, final: true, interrupted: false } })
const clear = (at: number): SocketEvent => ({ at, event: { type: 'clear' } })
const frames = (from: number, to: number) => Array.from({ length: Math.max(0, Math.floor((to - from) / 20)) }, (_, i) => ({ at: from + i * 20, bytes: 640 }))
const line = (role: SpokenLine['role'], text: string, onsetAt: number, endAt: number, extra: Partial<SpokenLine> = {}): SpokenLine => ({
  role,
  text,
  onsetAt,
  endAt,
  parts: [{ text, onsetAt, endAt }],
  ...extra,
})

function overAgent(type: 'backchannel' | 'noise' | 'barge_in', over: Partial<SituationRun> = {}): SituationRun {
  return {
    id: `${type}-1`,
    type,
    lang: 'en',
    voice: 'en-us',
    rateWpm: 175,
    lines: [
      line('lead', 'book a table', 0, 800),
      line('event', type === 'barge_in' ? 'wait I have a question' : type === 'noise' ? '' : 'uh-huh', ONSET, ONSET + 400),
    ],
    audio: frames(1000, 2700),
    events: [status(900, 'thinking'), status(1000, 'speaking'), agentFinal(2720, REPLY), status(2720, 'listening')],
    synthesis: PHRASES.map((p, i) => ({ receivedAt: 950 + i * 100, ...p })),
    engine: { bargeIn: [], backchannels: [] },
    ...over,
  }
}

function turn(pauseMs: number, events: SocketEvent[], over: Partial<SituationRun> = {}): SituationRun {
  const l = line('turn', 'can you tell me your opening hours', 0, 1500 + pauseMs, { pauseMs, cue: 'neutral' })
  l.parts = [
    { text: 'can you tell me', onsetAt: 0, endAt: 700 },
    { text: 'your opening hours', onsetAt: 700 + pauseMs, endAt: 1500 + pauseMs },
  ]
  return {
    id: `pause-${pauseMs}`,
    type: 'pause',
    lang: 'en',
    voice: 'en-gb',
    rateWpm: 140,
    lines: [l],
    audio: frames(2600 + pauseMs, 3000 + pauseMs),
    events,
    synthesis: [],
    engine: { bargeIn: [], backchannels: [] },
    ...over,
  }
}

t.test('a backchannel the agent talked through is ignored', async (t) => {
  t.match(scoreSituation(overAgent('backchannel')), {
    ignored: true,
    interrupted: false,
    user_turn: false,
    resumed: false,
    heard: { verdict: 'exact', words_claimed: 7 },
  })
})

t.test('a backchannel that caused an interrupt counts as not ignored', async (t) => {
  const run = overAgent('backchannel', {
    audio: frames(1000, 2300),
    events: [status(1000, 'speaking'), clear(2300), agentFinal(2300, 'One two three. Four', true)],
  })
  t.match(scoreSituation(run), { ignored: false, interrupted: true })
  const cutOnly = overAgent('backchannel', { events: [status(1000, 'speaking'), agentFinal(2300, 'One two three.', true)] })
  t.match(scoreSituation(cutOnly), { ignored: false, interrupted: true }, 'an interrupted transcript alone is an interrupt too')
})

t.test('a backchannel taken as a user turn counts as not ignored', async (t) => {
  const run = overAgent('backchannel', { events: [status(1000, 'speaking'), agentFinal(2720, REPLY), userFinal(3100, 'uh-huh')] })
  t.match(scoreSituation(run), { ignored: false, interrupted: false, user_turn: true })
})

t.test('a pause then resume is a false-interruption resume, and the hole the caller heard is measured', async (t) => {
  const audio = [...frames(1000, 2300), ...frames(2800, 3200)]
  const run = overAgent('backchannel', {
    audio,
    engine: { bargeIn: ['pause', 'resume'], backchannels: ['uh-huh'] },
    events: [status(1000, 'speaking'), agentFinal(3220, REPLY)],
  })
  const s = scoreSituation(run)
  t.match(s, { ignored: true, resumed: true })
  // The last frame before the hole arrived at 2280 and played until 2300; the next came at 2800.
  t.equal((s as { stopped_ms: number }).stopped_ms, 500)
  const r = scoreRuns([run, overAgent('noise', { engine: { bargeIn: ['pause', 'resume'], backchannels: [] } }), overAgent('noise')])
  t.equal(r.false_interruption_resumes, 2, 'backchannels and noises both count')
  t.match(r.noise, { n: 2, ignored: 2, resumed: 1 })
})

t.test('a barge-in: honoured when the agent is cut, its stop latency from the onset, late past 150 ms', async (t) => {
  const at = (stopAt: number) =>
    overAgent('barge_in', {
      // Frames every 20 ms from 1000, the last one arriving exactly at stopAt.
      audio: [...frames(1000, stopAt), { at: stopAt, bytes: 640 }],
      events: [
        status(1000, 'speaking'),
        clear(stopAt + 400),
        agentFinal(stopAt + 400, 'One two three.', true),
        { at: stopAt + 410, event: { type: 'metrics', barge_in_stop_ms: 4 } },
      ],
    })
  t.match(scoreSituation(at(ONSET + 120)), { honoured: true, stop_ms: 120, in_time: true, engine_stop_ms: 4 })
  t.match(scoreSituation(at(ONSET + 170)), { honoured: true, stop_ms: 170, in_time: false }, 'honoured at 170 ms counts as late')
  t.match(scoreSituation(at(ONSET + 150)), { in_time: true }, '150 ms is within the goal')
  t.match(scoreSituation(overAgent('barge_in')), { honoured: false, stop_ms: null, in_time: false }, 'talked through: not honoured')
  const comeback = overAgent('barge_in', {
    audio: [...frames(1000, ONSET + 300), ...frames(ONSET + 2000, ONSET + 3000), { at: ONSET + 3000, bytes: 640 }],
    events: [status(1000, 'speaking'), clear(ONSET + 3100), agentFinal(ONSET + 3100, 'One two three. Four five six', true)],
    engine: { bargeIn: ['pause', 'resume'], backchannels: [] },
  })
  t.match(
    scoreSituation(comeback),
    { honoured: true, resumed: true, stop_ms: 3000, in_time: false },
    'paused at 300 ms, talked on, cut at 3 s: stopped for good at 3 s',
  )
  const r = scoreRuns([at(ONSET + 120), at(ONSET + 170), overAgent('barge_in')])
  t.match(r.barge_ins, { n: 3, honoured: 2, in_time: 1, in_time_share: 0.3333, resumed: 0, stop_ms: { n: 2, p50: 120, max: 170 } })
  t.equal(scoreRuns([comeback]).barge_ins.resumed, 1)
  t.match(
    r.goals.find((g) => g.figure.startsWith('barge-ins honoured')),
    { value: 33.33, met: false },
  )
})

t.test('the heard transcript: exact, overclaimed or underclaimed against the audio that arrived', async (t) => {
  // 0.7 s of the first phrase, then 500 ms of the second (1000 ms of tone): "Four five" end at 9/20 of its characters.
  const cut = (text: string) =>
    overAgent('barge_in', { audio: frames(1000, 2200), events: [status(1000, 'speaking'), clear(2250), agentFinal(2250, text, true)] })
  t.match(scoreSituation(cut('One two three. Four five')), { heard: { verdict: 'exact', heard_ms: 1200 } })
  t.match(scoreSituation(cut('One two three. Four five six')), { heard: { verdict: 'overclaimed' } }, 'a word whose audio never arrived')
  t.match(scoreSituation(cut('One two three.')), { heard: { verdict: 'underclaimed' } }, 'heard words left out')
  t.match(scoreSituation(cut('One two tree. Four five')), { heard: { verdict: 'overclaimed' } }, 'words the reply never had')
  const r = scoreRuns([cut('One two three. Four five'), cut('One two three. Four five six')])
  t.match(r.transcript_heard, { checked: 2, exact: 1, overclaimed: 1, underclaimed: 0 })
})

t.test('the oracle counts a word heard only once its last character was played', async (t) => {
  t.equal(wordsHeard('Four five six seven.', 0.2), 1, '"Four" ends at 4/20')
  t.equal(wordsHeard('Four five six seven.', 0.19), 0)
  t.equal(wordsHeard('Four five six seven.', 1), 4)
  t.equal(heardWordCount(PHRASES, 0), 0)
  t.equal(heardWordCount(PHRASES, 700), 3, 'the first phrase in full')
  t.equal(heardWordCount(PHRASES, 5000), 7, 'more audio than the reply: all of it')
})

t.test('a situation the agent was not speaking over is invalid, never scored', async (t) => {
  const quiet = overAgent('backchannel', { events: [status(1000, 'speaking'), status(1900, 'listening'), agentFinal(1900, REPLY)] })
  t.match(scoreSituation(quiet), { invalid: /not speaking at the onset \(status listening\)/ })
  const broken = overAgent('barge_in', { harnessError: 'no reply to the lead turn' })
  const noRecord = overAgent('backchannel', { engine: null })
  const r = scoreRuns([quiet, broken, noRecord, overAgent('backchannel')])
  t.equal(r.situations, 4)
  t.same(
    r.invalid.map((i) => i.id),
    ['backchannel-1', 'barge_in-1', 'backchannel-1'],
  )
  t.match(r.backchannels, { n: 1, ignored: 1, ignored_share: 1 })
  t.match(r.barge_ins, { n: 0, honoured_share: null })
  t.match(
    r.goals.find((g) => g.figure.startsWith('barge-ins')),
    { value: null, met: null },
    'nothing scored: not measured, never met',
  )
})

t.test('an end of turn inside a pause is premature; pauses over 600 ms are kept apart', async (t) => {
  const premature = turn(450, [userFinal(1200, 'can you tell me'), status(1200, 'thinking'), userFinal(2400, 'your opening hours')])
  t.match(scoreSituation(premature), { premature: true, split: true, joined: false, pause_ms: 450, cue: 'neutral', answered: true })
  const whole = turn(600, [userFinal(2500, 'can you tell me your opening hours')])
  t.match(scoreSituation(whole), { premature: false, split: false, joined: true })
  const long = turn(900, [userFinal(1700, 'can you tell me'), userFinal(2900, 'your opening hours')])
  const late = turn(300, [userFinal(1850, 'can you tell me'), userFinal(2100, 'your opening hours')])
  t.match(scoreSituation(late), { premature: true, split: true }, 'ended after the line, but without the words after the pause: taken at the pause')
  const lateWhole = turn(300, [userFinal(1850, 'can you tell me your opening hours'), userFinal(2100, 'and more')])
  t.match(scoreSituation(lateWhole), { premature: false, split: true, joined: false }, 'every word in the first turn, then another: split, not premature')
  const r = scoreRuns([premature, whole, long, late, lateWhole])
  t.match(r.pauses, {
    n: 5,
    short_n: 4,
    premature_short: 2,
    premature_long: 1,
    split: 4,
    joined: 1,
    by_pause_ms: { 300: { n: 2, premature: 1, split: 2 }, 450: { n: 1, premature: 1 }, 900: { n: 1, premature: 1 } },
  })
  t.match(
    r.goals.find((g) => g.figure.startsWith('premature')),
    { value: 2, met: false },
  )
  t.match(
    scoreRuns([whole]).goals.find((g) => g.figure.startsWith('premature')),
    { value: 0, met: true },
  )
})

t.test('fast turns: each turn answered and transcribed on its own', async (t) => {
  const lines = [line('turn', 'please book it', 0, 800), line('turn', 'eight o clock', 2500, 3200), line('turn', 'Alex Morgan', 5000, 5600)]
  const run: SituationRun = {
    id: 'fast-1',
    type: 'fast_turns',
    lang: 'en',
    voice: 'en-us',
    rateWpm: 210,
    lines,
    audio: [...frames(1300, 2200), ...frames(3700, 4600)],
    events: [userFinal(1100, 'please book it'), userFinal(3500, 'eight o clock Alex')],
    synthesis: [],
    engine: { bargeIn: [], backchannels: [] },
  }
  t.match(scoreSituation(run), { turns: 3, answered: 2, exact: 1 })
  t.match(scoreRuns([run]).fast_turns, { n: 1, turns: 3, answered: 2, exact: 1 })
})

t.test('backchannel goal: 95 % ignored', async (t) => {
  const cut = () => overAgent('backchannel', { events: [status(1000, 'speaking'), clear(2300)] })
  const nineteen = [...Array.from({ length: 19 }, () => overAgent('backchannel')), cut()]
  t.match(scoreRuns(nineteen).goals[0], { value: 95, met: true })
  const eighteen = [...Array.from({ length: 18 }, () => overAgent('backchannel')), cut(), cut()]
  t.match(scoreRuns(eighteen).goals[0], { value: 90, met: false })
})
