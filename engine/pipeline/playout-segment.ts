/**
 * One segment of playout (one phrase, one TTS synthesis) and the words of it the caller heard.
 *
 * Heard text. Playout knows what it sent, not what the client played, so heard = sent. Protocol v1
 * has a `clear` event (docs/protocol.md, engine/server/protocol.ts `events.clear`), which the call
 * sends on a barge-in: the client drops audio received but not yet played. So after interrupt() the
 * words counted as heard may include up to the lead (`leadMs`) of audio the client dropped unplayed;
 * after pause() no `clear` is sent and the client plays the lead it holds (≤ leadMs) before falling
 * silent. `leadMs: FRAME_MS` bounds both to one frame at the cost of jitter margin.
 * TTS providers give no word timings, so a segment's words count as heard in proportion to its audio
 * sent, rounded down to a word boundary (never claim a word not fully played). While TTS is still
 * streaming the segment's length is unknown; it is estimated from the text (`msPerChar`) so the
 * fraction is not overstated.
 */
import type { SampleQueue } from '../audio/sample-queue.js'

export interface HeardSegment {
  /** The words of the segment heard so far (all of them once complete). */
  text: string
  complete: boolean
  interrupted: boolean
}

export type SegmentState = 'open' | 'finished' | 'interrupted'

/** A push() waiting for room in the playout's buffer. */
export interface WaitingChunk {
  pcm: Int16Array
  resolve: (queued: boolean) => void
}

export interface Segment {
  text: string
  state: SegmentState
  endCalled: boolean
  /** Admitted, unsent samples. */
  audio: SampleQueue
  waiting: WaitingChunk[]
  /** Samples admitted, whether sent or not. */
  admitted: number
  /** Real (unpadded) samples sent. */
  sent: number
  framesSent: number
  /** Heard text fixed at interrupt(), before the unplayed audio that sized the fraction is dropped. */
  heardAtCut: string | null
}

export function newSegment(text: string, audio: SampleQueue): Segment {
  return { text, state: 'open', endCalled: false, audio, waiting: [], admitted: 0, sent: 0, framesSent: 0, heardAtCut: null }
}

/** The words of `seg` heard so far, by the share of its audio sent (`samplesPerMs`: the playout's rate). */
export function heardOf(seg: Segment, msPerChar: number, samplesPerMs: number): string {
  if (seg.state === 'finished') return seg.text
  if (seg.heardAtCut !== null) return seg.heardAtCut
  const known = seg.admitted + seg.waiting.reduce((n, w) => n + w.pcm.length, 0)
  // Until end(), more audio may come: the text-based estimate keeps the fraction from overstating.
  const total = seg.endCalled ? known : Math.max(known, seg.text.length * msPerChar * samplesPerMs)
  return heardPrefix(seg.text, total > 0 ? seg.sent / total : 0)
}

/**
 * The words of `text` whose last character lies within the first `fraction` of it, by character
 * count (a proxy for speaking time). Trailing punctuation of a heard word is kept.
 */
export function heardPrefix(text: string, fraction: number): string {
  const limit = Math.max(0, Math.min(1, fraction)) * text.length
  let end = 0
  for (const m of text.matchAll(/\S+/g)) {
    const wordEnd = m.index + m[0].length
    if (wordEnd > limit + 1e-9) break
    end = wordEnd
  }
  return text.slice(0, end).trim()
}
