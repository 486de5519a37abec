/**
 * How the Deepgram stand-in finds speech in the audio it receives, and which of a scripted
 * utterance's words the audio so far has "said". It recognizes nothing: loud 10 ms blocks are
 * speech, and the words of the scripted text are spread over the utterance's speech by length.
 */
import { rms } from '../../../audio/index.js'

/** 10 ms at 16 kHz: the unit in which the stand-in looks for speech. */
export const BLOCK = 160
/** RMS (0..1) of a 10 ms block from which it counts as speech, unless `speechThreshold` says otherwise. */
export const DEFAULT_SPEECH_RMS = 0.02

/**
 * First loud 10 ms block's start → last loud block's end (ms) of 16 kHz audio, as the stand-in
 * finds speech: what a caller gives as ScriptedUtterance.speechMs. 0 when silent.
 */
export function speechSpanMs(pcm: Int16Array, threshold = DEFAULT_SPEECH_RMS): number {
  let first = -1
  let last = -1
  for (let at = 0; at + BLOCK <= pcm.length; at += BLOCK) {
    if (rms(pcm.subarray(at, at + BLOCK)) < threshold) continue
    if (first < 0) first = at
    last = at + BLOCK
  }
  return first < 0 ? 0 : ((last - first) * 1000) / 16_000
}

/** An utterance being heard: its scripted words, where its speech started, and how long it lasts when the script says. */
export interface HeardUtterance {
  words: string[]
  /** Audio time (ms) of the speech start. */
  startMs: number
  /** ScriptedUtterance.speechMs: undefined when the script gives no timing. */
  speechMs: number | undefined
  /** Interims sent so far. */
  interims: number
}

/** How many of `u`'s words have had their audio arrive by audio time `nowMs` (see ScriptedUtterance.speechMs). */
export function heardWords(u: HeardUtterance, nowMs: number): number {
  const { words, speechMs } = u
  // Growing prefixes, never the whole text: the final is what completes it.
  if (speechMs === undefined) return Math.min(u.interims, Math.max(0, words.length - 1))
  const total = words.reduce((n, w) => n + w.length, 0)
  let chars = 0
  let heard = 0
  for (const w of words) {
    chars += w.length
    if (u.startMs + (speechMs * chars) / total > nowMs) break
    heard++
  }
  return heard
}
