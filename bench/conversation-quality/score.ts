/**
 * The conversation-quality scorer: situation runs (run-types.ts) in, per-situation verdicts and
 * the figures against the goals out. Pure: no clock, no I/O, so it is tested on synthetic timelines
 * (test/bench/conversation-quality-score.test.ts).
 *
 * Over the agent (backchannel, noise, barge_in), from the onset of what the caller did:
 * - **interrupted**: a `clear` came, or the agent's transcript came marked `interrupted`;
 * - **user turn**: a user `transcript` with `final: true` came (the engine took it as a turn);
 * - **ignored** (backchannel, noise) = neither;
 * - **resumed**: the engine's record of the call holds a `barge_in_resume` (it paused the reply
 *   for the caller, then went on with it: a false-interruption resume); **stopped_ms** is the hole
 *   the caller heard: agent audio missing for more than STALL_MS, from the onset until a second
 *   after the caller stopped (phrase boundaries leave 80–200 ms holes of their own, so the hole is
 *   reported, and the engine's decision is what counts);
 * - **honoured** (barge_in) = interrupted; its **stop latency** = the last agent audio that arrived
 *   before the `clear` − the onset of the caller's speech, the engine's whole share (VAD, decision,
 *   playout) without the client's playback buffer; **in time** = honoured and ≤ BARGE_IN_GOAL_MS.
 *   An engine that paused, resumed and was cut later stopped for good only then: its latency is the
 *   last audio's, and the barge-in also counts as `resumed`.
 * A situation whose agent was not speaking at the onset (its last `status` before it was not
 * `speaking`) did not happen as labelled: it is reported as invalid, never scored.
 *
 * A caller's turn (pause, long_turn, fast_turns):
 * - **premature**: the engine ended the turn before the caller was done: the line's first user
 *   final transcript arrived before its last sample was sent, or it lacks words the caller said
 *   after the pause (the turn was taken at the pause, and the rest becomes a turn of its own);
 * - **split**: more than one user final for the line; **answered**: agent audio after its end.
 *
 * **Heard transcript**: the agent's final transcript of the reply the caller spoke over must hold
 * the words whose audio reached the caller and no more. The oracle walks the reply's synthesis
 * requests in order (each `toneMs` of audio) over the audio received before the `clear` (or the
 * final transcript), and counts a word heard when its last character lies within the part of its
 * phrase played (characters as the proxy for time, the playout's documented rule), within ±1 frame.
 */
import { distribution } from '../voice/metrics.js'
import { PAUSE_GOAL_MAX_MS } from './plan.js'
import type { SituationRun, SocketEvent, SpokenLine } from './run-types.js'
import type {
  BargeInScore,
  ConversationQualityScores,
  FastTurnsScore,
  GoalFigure,
  HeardCheck,
  InvalidScore,
  OverAgentScore,
  SituationScore,
  TurnScore,
} from './scores.js'

/** A player running dry for longer than this is a hole the caller hears (4 frames). */
export const STALL_MS = 80
export const BARGE_IN_GOAL_MS = 150
export const SHARE_GOAL = 0.95
const BYTES_PER_MS = 32
const FRAME_MS = 20

const isUserFinal = (e: SocketEvent) => e.event.type === 'transcript' && e.event.role === 'user' && e.event.final === true
const isAgentFinal = (e: SocketEvent) => e.event.type === 'transcript' && e.event.role === 'agent' && e.event.final === true
const words = (text: string) => text.split(/\s+/).filter(Boolean)

/** The words of `text` whose last character lies within the first `fraction` of it (by characters). */
export function wordsHeard(text: string, fraction: number): number {
  const limit = Math.max(0, Math.min(1, fraction)) * text.length
  let n = 0
  for (const m of text.matchAll(/\S+/g)) {
    if (m.index + m[0].length > limit + 1e-9) break
    n++
  }
  return n
}

/** Words of the reply heard after `heardMs` of its audio, over its synthesis requests in order. */
export function heardWordCount(phrases: Array<{ text: string; toneMs: number }>, heardMs: number): number {
  let left = heardMs
  let n = 0
  for (const p of phrases) {
    if (left >= p.toneMs) {
      n += words(p.text).length
      left -= p.toneMs
      continue
    }
    return n + wordsHeard(p.text, left / p.toneMs)
  }
  return n
}

/**
 * What the caller heard missing from the reply (ms) in underruns longer than STALL_MS that begin
 * within [from, until]: a player that plays each message's audio (bytes / 32 ms) on arrival, or
 * once what it holds has played, runs dry whenever the next message comes after that.
 */
function holeMs(audio: SituationRun['audio'], from: number, until: number): number {
  let missing = 0
  let playedUntil = -Infinity
  for (const a of audio) {
    const dry = a.at - playedUntil
    if (playedUntil >= from && playedUntil <= until && dry > STALL_MS) missing += dry
    playedUntil = Math.max(playedUntil, a.at) + a.bytes / BYTES_PER_MS
  }
  return Math.round(missing)
}

/** The reply the caller spoke over: its synthesis requests and audio between `from` and `until`. */
function heardCheck(run: SituationRun, from: number, until: number, transcript: string | null): HeardCheck | null {
  if (transcript === null) return null
  const phrases = run.synthesis.filter((s) => s.receivedAt >= from && s.receivedAt <= until)
  if (!phrases.length) return null
  const heardMs = run.audio.filter((a) => a.at > from && a.at <= until).reduce((n, a) => n + a.bytes, 0) / BYTES_PER_MS
  const lo = heardWordCount(phrases, heardMs - FRAME_MS)
  const hi = heardWordCount(phrases, heardMs + FRAME_MS)
  const said = words(transcript)
  const full = phrases.flatMap((p) => words(p.text))
  const prefix = said.every((w, i) => w === full[i])
  const verdict = !prefix || said.length > hi ? 'overclaimed' : said.length < lo ? 'underclaimed' : 'exact'
  return { heard_ms: Math.round(heardMs), words_heard_min: lo, words_heard_max: hi, words_claimed: said.length, verdict }
}

function overAgent(run: SituationRun): SituationScore {
  const base = { id: run.id, type: run.type, lang: run.lang, voice: run.voice, rate_wpm: run.rateWpm }
  const lead = run.lines.find((l) => l.role === 'lead')
  const event = run.lines.find((l) => l.role === 'event')
  if (!lead || !event) return { ...base, invalid: 'no lead turn or no event line' }
  const status = run.events.filter((e) => e.event.type === 'status' && e.at <= event.onsetAt).at(-1)?.event.status
  if (status !== 'speaking') return { ...base, invalid: `the agent was not speaking at the onset (status ${String(status ?? 'none')})` }
  const after = run.events.filter((e) => e.at >= event.onsetAt)
  const clear = after.find((e) => e.event.type === 'clear') ?? null
  const cut = after.find((e) => isAgentFinal(e) && e.event.interrupted === true) ?? null
  const interrupted = clear !== null || cut !== null
  const userTurn = after.some(isUserFinal)
  const replyEnd = clear?.at ?? after.find(isAgentFinal)?.at ?? Infinity
  const resumed = run.engine?.bargeIn.includes('resume') ?? false
  const agentText = (cut ?? after.find(isAgentFinal))?.event.text
  const heard = heardCheck(run, lead.endAt, replyEnd, typeof agentText === 'string' ? agentText : null)
  if (run.type !== 'barge_in') {
    return {
      ...base,
      type: run.type as OverAgentScore['type'],
      ignored: !interrupted && !userTurn,
      interrupted,
      user_turn: userTurn,
      resumed,
      stopped_ms: holeMs(run.audio, event.onsetAt, Math.min(replyEnd, event.endAt + 1000)),
      heard,
    }
  }
  const lastAudio = clear ? (run.audio.filter((a) => a.at <= clear.at).at(-1)?.at ?? null) : null
  const stopMs = lastAudio === null ? null : Math.round((lastAudio - event.onsetAt) * 100) / 100
  const metrics = after.find((e) => e.event.type === 'metrics' && typeof e.event.barge_in_stop_ms === 'number')
  return {
    ...base,
    type: 'barge_in',
    honoured: interrupted,
    stop_ms: stopMs,
    in_time: interrupted && stopMs !== null && stopMs <= BARGE_IN_GOAL_MS,
    resumed,
    engine_stop_ms: metrics ? (metrics.event.barge_in_stop_ms as number) : null,
    heard,
  }
}

/** User finals of a caller line until `until`, whether the first one cut it short, and whether the agent answered it. */
function turnOf(run: SituationRun, line: SpokenLine, until: number) {
  const finals = run.events.filter((e) => isUserFinal(e) && e.at > line.onsetAt && e.at <= until)
  const first = finals[0]
  const cut = first !== undefined && (first.at < line.endAt || words(String(first.event.text ?? '')).length < words(line.text).length)
  const answered = run.audio.some((a) => a.at > line.endAt && a.at <= until)
  return { finals, cut, answered }
}

function callerTurns(run: SituationRun): SituationScore {
  const base = { id: run.id, type: run.type, lang: run.lang, voice: run.voice, rate_wpm: run.rateWpm }
  const turns = run.lines.filter((l) => l.role === 'turn')
  if (!turns.length) return { ...base, invalid: 'no caller turn' }
  if (run.type === 'fast_turns') {
    let answered = 0
    let exact = 0
    for (const [i, line] of turns.entries()) {
      const t = turnOf(run, line, turns[i + 1]?.onsetAt ?? Infinity)
      if (t.answered) answered++
      if (t.finals.length === 1 && t.finals[0]!.event.text === line.text) exact++
    }
    return { ...base, type: 'fast_turns', turns: turns.length, answered, exact }
  }
  const line = turns[0]!
  const t = turnOf(run, line, Infinity)
  return {
    ...base,
    type: run.type as TurnScore['type'],
    pause_ms: line.pauseMs ?? null,
    cue: line.cue ?? null,
    premature: t.cut,
    split: t.finals.length > 1,
    joined: t.finals.length === 1 && t.finals[0]!.event.text === line.text,
    answered: t.answered,
  }
}

export function scoreSituation(run: SituationRun): SituationScore {
  const base = { id: run.id, type: run.type, lang: run.lang, voice: run.voice, rate_wpm: run.rateWpm }
  if (run.harnessError) return { ...base, invalid: run.harnessError }
  if (!run.engine) return { ...base, invalid: "the engine's record of the call is missing" }
  return run.type === 'backchannel' || run.type === 'noise' || run.type === 'barge_in' ? overAgent(run) : callerTurns(run)
}

const share = (k: number, n: number) => (n ? Math.round((k / n) * 10_000) / 10_000 : null)
const count = <T>(xs: T[], f: (x: T) => boolean) => xs.filter(f).length

export function scoreRuns(runs: SituationRun[]): ConversationQualityScores {
  const situations = runs.map(scoreSituation)
  const scored = situations.filter((s): s is Exclude<SituationScore, InvalidScore> => !('invalid' in s))
  const bcs = scored.filter((s): s is OverAgentScore => s.type === 'backchannel')
  const noises = scored.filter((s): s is OverAgentScore => s.type === 'noise')
  const barges = scored.filter((s): s is BargeInScore => s.type === 'barge_in')
  const pauses = scored.filter((s): s is TurnScore => s.type === 'pause')
  const longs = scored.filter((s): s is TurnScore => s.type === 'long_turn')
  const fast = scored.filter((s): s is FastTurnsScore => s.type === 'fast_turns')
  const heard = [...bcs, ...noises, ...barges].map((s) => s.heard).filter((h): h is HeardCheck => h !== null)
  const shortPauses = pauses.filter((p) => p.pause_ms !== null && p.pause_ms <= PAUSE_GOAL_MAX_MS)
  const byPause: Record<string, { n: number; premature: number; split: number }> = {}
  for (const p of pauses) {
    const k = String(p.pause_ms)
    byPause[k] ??= { n: 0, premature: 0, split: 0 }
    byPause[k].n++
    if (p.premature) byPause[k].premature++
    if (p.split) byPause[k].split++
  }
  const overAgentRuns = [...bcs, ...noises]
  const scores: Omit<ConversationQualityScores, 'goals'> = {
    situations: situations.length,
    invalid: situations.filter((s): s is InvalidScore => 'invalid' in s).map((s) => ({ id: s.id, reason: s.invalid })),
    backchannels: {
      n: bcs.length,
      ignored: count(bcs, (s) => s.ignored),
      ignored_share: share(
        count(bcs, (s) => s.ignored),
        bcs.length,
      ),
      interrupted: count(bcs, (s) => s.interrupted),
      user_turns: count(bcs, (s) => s.user_turn),
      resumed: count(bcs, (s) => s.resumed),
    },
    noise: {
      n: noises.length,
      ignored: count(noises, (s) => s.ignored),
      ignored_share: share(
        count(noises, (s) => s.ignored),
        noises.length,
      ),
      interrupted: count(noises, (s) => s.interrupted),
      user_turns: count(noises, (s) => s.user_turn),
      resumed: count(noises, (s) => s.resumed),
    },
    barge_ins: {
      n: barges.length,
      honoured: count(barges, (s) => s.honoured),
      honoured_share: share(
        count(barges, (s) => s.honoured),
        barges.length,
      ),
      in_time: count(barges, (s) => s.in_time),
      in_time_share: share(
        count(barges, (s) => s.in_time),
        barges.length,
      ),
      resumed: count(barges, (s) => s.resumed),
      stop_ms: distribution(barges.flatMap((s) => (s.honoured && s.stop_ms !== null ? [s.stop_ms] : []))),
      engine_stop_ms: distribution(barges.flatMap((s) => (s.engine_stop_ms !== null ? [s.engine_stop_ms] : []))),
    },
    pauses: {
      n: pauses.length,
      goal_max_pause_ms: PAUSE_GOAL_MAX_MS,
      short_n: shortPauses.length,
      premature_short: count(shortPauses, (p) => p.premature),
      premature_long: count(pauses, (p) => p.premature && !shortPauses.includes(p)),
      split: count(pauses, (p) => p.split),
      joined: count(pauses, (p) => p.joined),
      by_pause_ms: byPause,
    },
    long_turns: { n: longs.length, premature: count(longs, (s) => s.premature), answered: count(longs, (s) => s.answered) },
    fast_turns: {
      n: fast.length,
      turns: fast.reduce((s, f) => s + f.turns, 0),
      answered: fast.reduce((s, f) => s + f.answered, 0),
      exact: fast.reduce((s, f) => s + f.exact, 0),
    },
    false_interruption_resumes: count(overAgentRuns, (s) => s.resumed),
    transcript_heard: {
      checked: heard.length,
      exact: count(heard, (h) => h.verdict === 'exact'),
      overclaimed: count(heard, (h) => h.verdict === 'overclaimed'),
      underclaimed: count(heard, (h) => h.verdict === 'underclaimed'),
    },
    by_situation: situations,
  }
  return { ...scores, goals: goalFigures(scores) }
}

function goalFigures(s: Omit<ConversationQualityScores, 'goals'>): GoalFigure[] {
  const pct = (x: number | null) => (x === null ? null : Math.round(x * 10_000) / 100)
  const fig = (figure: string, goal: string, value: number | null, unit: string, met: (v: number) => boolean): GoalFigure => ({
    figure,
    goal,
    value,
    unit,
    met: value === null ? null : met(value),
  })
  return [
    fig('backchannels ignored', '≥ 95 %', pct(s.backchannels.ignored_share), '%', (v) => v >= SHARE_GOAL * 100),
    fig(`barge-ins honoured within ${BARGE_IN_GOAL_MS} ms of onset`, '≥ 95 %', pct(s.barge_ins.in_time_share), '%', (v) => v >= SHARE_GOAL * 100),
    fig(`premature end of turn, pauses ≤ ${PAUSE_GOAL_MAX_MS} ms`, '0', s.pauses.short_n ? s.pauses.premature_short : null, 'turns', (v) => v === 0),
  ]
}
