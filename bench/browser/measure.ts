/**
 * Pure figures over what the page recorded (page-tap.ts) and logged (test/client/call-page.ts): no
 * I/O, no clock. Two clocks meet here, and each figure stays on one of them:
 *
 * - the AudioContext's sample clock (`frame`): the tap's edges, found at the sample on the audio
 *   thread, for the microphone and the output alike. A span between two of them is exact to the
 *   sample whatever the main thread was doing: mouth-to-ear and onset → silent are on it;
 * - the page's performance.now(): the library's events (`clear`, transcripts, metrics), the
 *   socket's agent audio messages, and each edge's arrival on the main thread (`onAt`, `offAt`),
 *   which is the instant the graph rendered the edge's quantum plus the message's hop. A span from
 *   an event to an edge is on it (clear → silent, socket → output): an upper bound by that hop.
 *
 * The graph renders a device buffer at a time (10 ms in headless Chromium: the edges' stamps come
 * in steps of it), so an instant on the page clock is the render of the burst holding it.
 */
import { distribution } from '../voice/metrics.js'
import type { Distribution } from '../voice/result.js'
import type { TapEdge } from './page-tap.js'
import type { PlannedLine } from './plan.js'
import type { BargeInTiming, FlushTiming, TurnTiming } from './result.js'

export interface Logged {
  name: string
  atMs: number
  payload: unknown
}

export interface Stretch {
  /** First loud frame. */
  on: number
  /** First frame of the quiet after it (null: still loud when recording stopped). */
  off: number | null
  /** The page-clock arrival of its edges (`offAt` is `holdMs` after `off` was rendered). */
  onAt: number
  offAt: number | null
  /** The end of its last loud 8 ms block, when the tap looked for it (page-tap.ts, `blockDbfs`). */
  blockOff?: number | null
}

/** The page's record of one call. */
export interface PageRecord {
  rateHz: number
  edges: TapEdge[]
  /** performance.now() of each agent audio message the library's socket received. */
  agentAudioAt: number[]
  log: Logged[]
}

/**
 * For a barge-in, output sound stretches closer than this are one: the stand-in's phrases meet with
 * a few ms of zeros, and the agent is silenced when its output stays quiet longer than that.
 */
export const BARGE_IN_QUIET_MS = 300

const round = (ms: number) => Math.round(ms * 1000) / 1000

/** The input's stretches of sound, in order, from its edges; those less than `mergeMs` apart joined. */
export function stretches(edges: TapEdge[], input: TapEdge['input'], rateHz = 48_000, mergeMs = 0): Stretch[] {
  const out: Stretch[] = []
  for (const e of edges.filter((x) => x.input === input).sort((a, b) => a.frame - b.frame)) {
    const last = out.at(-1)
    if (e.kind === 'on') {
      if (last && last.off !== null && ((e.frame - last.off) * 1000) / rateHz < mergeMs) {
        last.off = null
        last.offAt = null
      } else out.push({ on: e.frame, off: null, onAt: e.receivedAt, offAt: null })
    } else if (last && last.off === null) {
      last.off = e.frame
      last.offAt = e.receivedAt
      if (e.blockEnd !== undefined) last.blockOff = e.blockEnd >= last.on ? e.blockEnd : null
    }
  }
  return out
}

/**
 * Which microphone stretch is which planned line. The fake microphone plays the plan in real time,
 * so each line's onset lies where the one before it lay plus their distance in the plan, within
 * `toleranceMs` (the microphone's and the context's clocks may drift apart a little over a run).
 * The first line is the first stretch (the tap is installed in the lead silence).
 */
export function matchLines(lines: PlannedLine[], mic: Stretch[], rateHz: number, toleranceMs = 150): Array<Stretch | null> {
  const ms = (frame: number) => (frame * 1000) / rateHz
  const out: Array<Stretch | null> = []
  // The last line found, and where: the next one is looked for at the plan's distance from it.
  let anchorOnMs: number | null = null
  let anchorStartMs = 0
  for (const line of lines) {
    const expected: number | null = anchorOnMs === null ? null : anchorOnMs + (line.startMs - anchorStartMs)
    const found: Stretch | null = expected === null ? (mic[0] ?? null) : (mic.find((s) => Math.abs(ms(s.on) - expected) <= toleranceMs) ?? null)
    out.push(found)
    if (found) {
      anchorOnMs = ms(found.on)
      anchorStartMs = line.startMs
    }
  }
  return out
}

const payload = (e: Logged) => (e.payload ?? {}) as Record<string, unknown>
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)

function metricsFor(log: Logged[], turnId: unknown): Record<string, unknown> | null {
  if (typeof turnId !== 'string') return null
  const m = log.find((e) => e.name === 'metrics' && payload(e)['turnId'] === turnId)
  return m ? payload(m) : null
}

/** The page-clock window of line k: from its onset to the next line's (matched) onset. */
function window(matched: Array<Stretch | null>, k: number): { from: number; until: number } {
  const next = matched.slice(k + 1).find((s) => s !== null)
  return { from: matched[k]!.onAt, until: next ? next.onAt : Infinity }
}

/** The turns: speech end → first output sound, beside the engine's voice-to-voice for the same turn. */
export function turnTimings(lines: PlannedLine[], matched: Array<Stretch | null>, r: PageRecord, missed: string[]): TurnTiming[] {
  const out = stretches(r.edges, 'out', r.rateHz)
  const ms = (frames: number) => (frames * 1000) / r.rateHz
  const timings: TurnTiming[] = []
  lines.forEach((line, k) => {
    if (line.kind !== 'turn') return
    const mic = matched[k]
    if (!mic || mic.off === null) return void missed.push(`turn ${k} "${line.text}": its speech was not found at the microphone`)
    const w = window(matched, k)
    const micOff = mic.off
    const reply = out.find((s) => s.on > micOff && s.onAt < w.until)
    if (!reply) return void missed.push(`turn ${k} "${line.text}": no agent audio at the output before the next line`)
    const user = r.log.find(
      (e) => e.name === 'transcript' && payload(e)['role'] === 'user' && payload(e)['final'] === true && e.atMs > w.from && e.atMs < w.until,
    )
    const v2v = num(metricsFor(r.log, user && payload(user)['turnId'])?.['voiceToVoiceMs'])
    if (v2v === null) missed.push(`turn ${k} "${line.text}": no voice_to_voice_ms from the engine`)
    // The reply's first audio message: the first after the speech (nothing else plays in between).
    const firstAudio = r.agentAudioAt.find((at) => at > w.from && at <= reply.onAt)
    const mouthToEar = ms(reply.on - micOff)
    timings.push({
      text: line.text,
      mouth_to_ear_ms: round(mouthToEar),
      engine_v2v_ms: v2v,
      library_added_ms: v2v === null ? null : round(mouthToEar - v2v),
      playback_ms: firstAudio === undefined ? null : round(reply.onAt - firstAudio),
      edge_gap_ms: typeof mic.blockOff === 'number' ? round(ms(mic.blockOff - micOff)) : null,
    })
  })
  return timings
}

/** The interruptions: onset → output silent (sample clock), and the `clear` and the last audio message against that silence (page clock). */
export function bargeInTimings(lines: PlannedLine[], matched: Array<Stretch | null>, r: PageRecord): BargeInTiming[] {
  const out = stretches(r.edges, 'out', r.rateHz, BARGE_IN_QUIET_MS)
  const ms = (frames: number) => (frames * 1000) / r.rateHz
  const timings: BargeInTiming[] = []
  lines.forEach((line, k) => {
    if (line.kind !== 'interruption' && line.kind !== 'closer') return
    const mic = matched[k]
    const none = {
      text: line.text,
      over_agent: false,
      onset_to_silent_ms: null,
      onset_to_last_audio_ms: null,
      drain_ms: null,
      clear_to_silent_ms: null,
      engine_stop_ms: null,
    }
    if (!mic) return void timings.push(none)
    const w = window(matched, k)
    // The agent's audio the caller spoke over, and where it stopped.
    const spokenOver = out.find((s) => s.on <= mic.on && (s.off === null || s.off > mic.on))
    if (!spokenOver) return void timings.push(none)
    const silentAt = spokenOver.offAt
    const clear = r.log.find((e) => e.name === 'clear' && e.atMs >= w.from && e.atMs < w.until)
    const cut = r.log.find(
      (e) => e.name === 'transcript' && payload(e)['role'] === 'agent' && payload(e)['interrupted'] === true && e.atMs >= w.from && e.atMs < w.until,
    )
    const lastAudio = silentAt === null ? undefined : r.agentAudioAt.filter((at) => at <= silentAt).at(-1)
    timings.push({
      text: line.text,
      over_agent: true,
      onset_to_silent_ms: spokenOver.off === null ? null : round(ms(spokenOver.off - mic.on)),
      onset_to_last_audio_ms: lastAudio === undefined ? null : round(lastAudio - mic.onAt),
      drain_ms: lastAudio === undefined || silentAt === null ? null : round(silentAt - lastAudio),
      clear_to_silent_ms: clear && silentAt !== null ? round(silentAt - clear.atMs) : null,
      engine_stop_ms: num(metricsFor(r.log, cut && payload(cut)['turnId'])?.['bargeInStopMs']),
    })
  })
  return timings
}

/**
 * The API-driven clears (page clock): each → the output silent, when it was sounding then. Not
 * merged: the interrupting line may start sounding less than 100 ms after the flush.
 */
export function flushTimings(clearsAt: number[], r: PageRecord): FlushTiming[] {
  const out = stretches(r.edges, 'out', r.rateHz)
  return clearsAt.map((at) => {
    const playing = out.find((s) => s.onAt <= at && (s.offAt === null || s.offAt > at))
    if (!playing || playing.offAt === null) return { playing_at_clear: false, clear_to_silent_ms: null }
    return { playing_at_clear: true, clear_to_silent_ms: round(playing.offAt - at) }
  })
}

/**
 * Holes in the agent's audio at the output: quiet of `minMs` to `maxMs` between two stretches of
 * sound (shorter ones are the engine's zero-padded phrase ends, longer ones the agent not speaking),
 * not right after a `clear`. Each says whether the socket went quiet first: the longest wait between
 * two agent audio messages around it. A wait far beyond the 20 ms frame pace means the engine sent
 * nothing (upstream); a hole with the messages on time would be the page's own.
 */
export function outputHoles(r: PageRecord, minMs = 10, maxMs = 300): OutputHole[] {
  const out = stretches(r.edges, 'out', r.rateHz)
  const clears = r.log.filter((e) => e.name === 'clear').map((e) => e.atMs)
  const holes: OutputHole[] = []
  for (let i = 1; i < out.length; i++) {
    const before = out[i - 1]!
    const after = out[i]!
    if (before.off === null || before.offAt === null) continue
    const holeMs = ((after.on - before.off) * 1000) / r.rateHz
    if (holeMs < minMs || holeMs > maxMs) continue
    if (clears.some((at) => at <= before.offAt! && before.offAt! - at < 300)) continue
    // The messages from well before the hole (what the buffer held) to its end.
    const around = r.agentAudioAt.filter((at) => at >= before.offAt! - 200 && at <= after.onAt)
    let socketGap = 0
    for (let k = 1; k < around.length; k++) socketGap = Math.max(socketGap, around[k]! - around[k - 1]!)
    holes.push({ at_ms: round(before.offAt), hole_ms: round(holeMs), socket_gap_ms: round(socketGap) })
  }
  return holes
}

export interface OutputHole {
  /** When the output went quiet (page clock). */
  at_ms: number
  /** How long it stayed quiet (sample clock). */
  hole_ms: number
  /** The longest wait between two agent audio messages at the socket from 200 ms before the hole to its end. */
  socket_gap_ms: number
}

export const dist = (values: Array<number | null>): Distribution => distribution(values.filter((v): v is number => v !== null))
