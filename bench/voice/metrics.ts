/**
 * Pure figures over the voice bench's timelines (timeline.ts). No I/O, no clock: the scenario
 * gathers timelines, these turn them into the numbers of VoiceBenchResult (result.ts).
 *
 * The headline figure is `engineAddedMs`: what the engine adds to a reply's voice-to-voice time
 * beyond what it cannot avoid. The issue states it as "voice-to-voice minus the configured
 * end-of-turn wait minus the provider delays actually injected". Subtracting them one after another
 * would be wrong whenever they overlap: with preemptive generation the LLM and TTS run *during*
 * the end-of-turn wait, so subtracting both the wait and their delays would count the overlap
 * twice and flatter the engine (even push the figure far below zero). Instead the figure compares
 * the real first audio with the first audio of an *infinitely fast engine* facing the same
 * providers and the same wait, whose instant is a max() over the paths that must all finish:
 *
 *   eot   = speechEndAt + endOfTurnWaitMs      the engine may not speak before its wait is over
 *   final = stt.finalSentAt                    the transcript cannot be used before the STT sent it
 *   words = stt.completeAt ?? final            the first STT message holding the final's words
 *   start = min(final, max(words, speechEndAt + speculateAfterMs))
 *                                              the LLM may start on the final, or speculate on an
 *                                              interim holding its words once the configured
 *                                              speculation silence has passed (from the last
 *                                              sample: a word's quiet tail, a final 'z', is
 *                                              still speech)
 *   chain = llmPhraseMs + ttsMs                provider time from the transcript to the first audio byte
 *
 *   preemptive:     ideal = max(eot, start + chain)   the wait runs alongside
 *   not preemptive: ideal = max(eot, final) + chain   the LLM starts once both the wait and the final are in
 *
 *   engineAdded = firstAudioAt − ideal
 *
 * `final` is the STT stand-in's real send instant rather than speechEnd + its injected delay,
 * because its endpointing (silence it must hear before finalizing) is provider time too; the cost
 * is that a delay in the engine's forwarding of audio to the STT hides inside `final`.
 * `ttsMs` is the speech stand-in's own request → first byte time (its injected delay plus its
 * timer's overshoot: the stand-in's lateness is the provider's, not the engine's).
 * `llmPhraseMs` is the LLM's own time to produce the text the first synthesis request spoke (see
 * there). Every instant is the bench process's performance.now(), so the figure carries only that
 * clock's noise and the loopback hops; it may come out slightly negative through that noise, and
 * the sign is kept (clamping at 0 would bias every percentile upwards and hide a broken join).
 */
import type { BargeInTimeline, ReplyTimeline } from './timeline.js'
import type { CapacityStep, Distribution, VoiceBenchResult } from './result.js'

/** Durations are kept to the µs: finer digits are clock noise and only bloat the JSON. */
const round = (ms: number): number => Math.round(ms * 1000) / 1000

/**
 * n, nearest-rank percentiles (the p-th is the ⌈p/100 · n⌉-th smallest value, always an observed
 * one, as the other benches compute theirs), mean, min and max. An empty list gives n 0 and zeros
 * everywhere, so the JSON never carries NaN (which JSON.stringify would turn into null); read n first.
 */
export function distribution(values: number[]): Distribution {
  const n = values.length
  if (n === 0) return { n: 0, p50: 0, p95: 0, p99: 0, mean: 0, min: 0, max: 0 }
  const sorted = [...values].sort((a, b) => a - b)
  const rank = (p: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))]!
  const mean = sorted.reduce((s, v) => s + v, 0) / n
  return { n, p50: round(rank(50)), p95: round(rank(95)), p99: round(rank(99)), mean: round(mean), min: round(sorted[0]!), max: round(sorted[n - 1]!) }
}

/** The caller's wait: end of its speech → first byte of the agent's reply audio. */
export function voiceToVoiceMs(r: ReplyTimeline): number | null {
  return r.firstAudioAt === null ? null : r.firstAudioAt - r.speechEndAt
}

/**
 * The LLM's own time to produce the text of the first synthesis request: from the request's
 * arrival to the last chunk the stand-in had sent by the time that synthesis request arrived
 * (injected first-token delay plus the paced chunks that made up the first phrase). When no chunk
 * precedes it (a synthesis not fed by this completion), the injected first-token delay stands in.
 */
export function llmPhraseMs(r: ReplyTimeline): number | null {
  if (!r.llm || !r.tts) return null
  let last: number | null = null
  // The finish chunk counts: a phrase ending the reply ("…with that.") is only known to be whole
  // when the provider says the reply is over (the next token could have been "5" or "com").
  const sent = r.llm.finishSentAt == null ? r.llm.chunkSentAt : [...r.llm.chunkSentAt, r.llm.finishSentAt]
  for (const at of sent) if (at <= r.tts.receivedAt && (last === null || at > last)) last = at
  return last === null ? r.llm.injectedFirstTokenMs : last - r.llm.receivedAt
}

/** What the providers alone took in a turn: STT final delay + LLM to the first phrase + TTS first byte. */
export function providerSumMs(r: ReplyTimeline): number | null {
  const llm = llmPhraseMs(r)
  if (llm === null || !r.stt || !r.tts) return null
  return r.stt.injectedMs + llm + ttsMs(r.tts)
}

/** The speech provider's request → first byte, as it happened (falls back to the injected delay). */
function ttsMs(tts: NonNullable<ReplyTimeline['tts']>): number {
  return Number.isFinite(tts.firstByteSentAt) && tts.firstByteSentAt >= tts.receivedAt ? tts.firstByteSentAt - tts.receivedAt : tts.injectedMs
}

/** Voice-to-voice minus what an infinitely fast engine would still take (header comment). */
export function engineAddedMs(r: ReplyTimeline): number | null {
  const llm = llmPhraseMs(r)
  if (r.firstAudioAt === null || llm === null || !r.stt || !r.tts) return null
  const eot = r.speechEndAt + r.endOfTurnWaitMs
  const final = r.stt.finalSentAt
  const words = r.stt.completeAt ?? final
  const start = Math.min(final, Math.max(words, r.speechEndAt + (r.speculateAfterMs ?? 0)))
  const chain = llm + ttsMs(r.tts)
  const ideal = r.preemptive ? Math.max(eot, start + chain) : Math.max(eot, final) + chain
  return r.firstAudioAt - ideal
}

/** The caller's view of a barge-in: its speech onset → the last agent audio it received. */
export function bargeInStopMs(b: BargeInTimeline): number {
  return b.lastAgentAudioAt - b.speechOnsetAt
}

/**
 * Output jitter of one continuous stretch of agent audio: each frame's lateness against an ideal
 * playout every `frameMs`. The schedule is anchored on the lower envelope, anchor = min over i of
 * (arrival_i − i·frameMs): the earliest start consistent with every frame, so no frame is ever
 * "early" (all values ≥ 0, the best-placed frame at 0) and one late first frame cannot make every
 * later one look early, as anchoring on the first arrival would.
 */
export function jitterMs(arrivals: number[], frameMs = 20): number[] {
  if (!arrivals.length) return []
  let anchor = Infinity
  for (const [i, at] of arrivals.entries()) anchor = Math.min(anchor, at - i * frameMs)
  return arrivals.map((at, i) => at - (anchor + i * frameMs))
}

const present = (v: number | null): v is number => v !== null

/** The `latency` and `barge_in` parts of the result; turns without a figure are left out of its distribution. */
export function summarize(replies: ReplyTimeline[], bargeIns: BargeInTimeline[]): Pick<VoiceBenchResult, 'latency' | 'barge_in'> {
  const v2v = replies.map(voiceToVoiceMs).filter(present)
  const added = replies.map(engineAddedMs).filter(present)
  const stop = bargeIns.map(bargeInStopMs)
  const engineStop = bargeIns.map((b) => b.engineStopMs).filter(present)
  return {
    latency: {
      turns: replies.length,
      voice_to_voice_ms: distribution(v2v),
      engine_added_ms: distribution(added),
      provider_sum_ms: distribution(replies.map(providerSumMs).filter(present)),
      samples: { voice_to_voice_ms: v2v.map(round), engine_added_ms: added.map(round) },
    },
    barge_in: {
      count: bargeIns.length,
      stop_ms: distribution(stop),
      engine_stop_ms: distribution(engineStop),
      samples: { stop_ms: stop.map(round), engine_stop_ms: engineStop.map(round) },
    },
  }
}

/**
 * Sessions one core holds: the largest tested N such that N and every smaller tested N were ok.
 * A pass above a failure (noise, or a GC pause landing in one step) does not count: capacity is
 * what holds all the way up, not the best lucky step. 0 when the smallest step already failed.
 */
export function capacityFrom(steps: CapacityStep[]): number {
  const firstFail = Math.min(...steps.filter((s) => !s.ok).map((s) => s.sessions))
  return Math.max(0, ...steps.filter((s) => s.ok && s.sessions < firstFail).map((s) => s.sessions))
}

/**
 * Least-squares line of RSS over sessions: the slope is the memory one more session costs, the
 * intercept the process's baseline. Null below two distinct session counts (no slope to fit).
 */
export function rssPerSessionMb(points: { sessions: number; rss_mb: number }[]): { rss_per_session_mb: number; baseline_rss_mb: number } | null {
  const n = points.length
  if (new Set(points.map((p) => p.sessions)).size < 2) return null
  const mx = points.reduce((s, p) => s + p.sessions, 0) / n
  const my = points.reduce((s, p) => s + p.rss_mb, 0) / n
  let sxy = 0
  let sxx = 0
  for (const p of points) {
    sxy += (p.sessions - mx) * (p.rss_mb - my)
    sxx += (p.sessions - mx) ** 2
  }
  const slope = sxy / sxx
  return { rss_per_session_mb: round(slope), baseline_rss_mb: round(my - slope * mx) }
}
