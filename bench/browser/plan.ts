/**
 * The caller's side of browser-call as one WAV for Chromium's fake microphone, which plays it from
 * the moment the page opens the microphone (and loops it, so it is long enough for the whole run).
 *
 * 1. Turns: each line, then silence long enough for the agent's short reply to be over.
 * 2. Barge-ins: an opener the agent answers at length, then interruptions, each placed while the
 *    agent's (long) reply to the line before it is playing; the last one gets a short reply.
 * 3. Silence: the flushes are driven through the API meanwhile, and the call is stopped.
 *
 * Pure: the lines' audio comes in, the timeline and what the stand-ins must say come out.
 */
import type { Line } from '../voice/utterances.js'

export const PLAN_RATE_HZ = 16_000

export interface PlanOptions {
  turns: number
  bargeIns: number
  /** Silence before the first line: the call connects and the greeting plays meanwhile. */
  leadMs: number
  /** Silence after a turn: end-of-turn wait + the providers' p95 + the short reply + a margin. */
  turnGapMs: number
  /** From the end of the line before to an interruption's start: inside the long reply however the providers draw. */
  bargeAfterMs: number
  /** Silence after the last line (the flush phase and the hang-up happen in it). */
  tailMs: number
}

export interface PlannedLine {
  kind: 'turn' | 'opener' | 'interruption' | 'closer'
  text: string
  speechMs: number
  /** Where the line's audio starts and ends in the WAV. */
  startMs: number
  endMs: number
}

export interface CallerPlan {
  pcm: Int16Array
  lines: PlannedLine[]
  /** What the LLM stand-in answers each line's exact words with. */
  replies: Map<string, string>
  /** End of the barge-in phase's last line, in the WAV. */
  lastLineEndMs: number
}

export interface PlanLines {
  /** Lines for the turns, used in rotation. */
  turns: Line[]
  opener: Line
  interruption: Line
  closer: Line
  shortReply: string
  longReply: string
}

export function buildPlan(o: PlanOptions, l: PlanLines): CallerPlan {
  if (o.bargeIns < 1) throw new RangeError('bargeIns must be ≥ 1 (the last one is the closer)')
  const pieces: Int16Array[] = []
  const lines: PlannedLine[] = []
  let samples = 0
  const ms = () => (samples * 1000) / PLAN_RATE_HZ
  const pause = (durationMs: number) => {
    const piece = new Int16Array(Math.round((durationMs * PLAN_RATE_HZ) / 1000))
    pieces.push(piece)
    samples += piece.length
  }
  const say = (kind: PlannedLine['kind'], line: Line) => {
    const startMs = ms()
    pieces.push(line.pcm)
    samples += line.pcm.length
    lines.push({ kind, text: line.text, speechMs: line.speechMs, startMs, endMs: ms() })
  }
  pause(o.leadMs)
  for (let k = 0; k < o.turns; k++) {
    say('turn', l.turns[k % l.turns.length]!)
    pause(o.turnGapMs)
  }
  say('opener', l.opener)
  for (let k = 0; k < o.bargeIns; k++) {
    pause(o.bargeAfterMs)
    say(k === o.bargeIns - 1 ? 'closer' : 'interruption', k === o.bargeIns - 1 ? l.closer : l.interruption)
  }
  const lastLineEndMs = ms()
  pause(o.tailMs)
  const pcm = new Int16Array(samples)
  let at = 0
  for (const p of pieces) {
    pcm.set(p, at)
    at += p.length
  }
  const replies = new Map<string, string>()
  for (const t of l.turns) replies.set(t.text, l.shortReply)
  replies.set(l.opener.text, l.longReply)
  replies.set(l.interruption.text, l.longReply)
  replies.set(l.closer.text, l.shortReply)
  return { pcm, lines, replies, lastLineEndMs }
}
