/**
 * What a turn's playout measured: when its audio came and went out, and each gap in it by cause.
 * A gap is found when sending restarts after the client ran dry; why nothing was being sent
 * decides which count it goes to.
 */
export interface PlayoutMetrics {
  /** When the turn's first chunk reached playout (TTS first byte) and its first frame was sent. */
  firstChunkAt: number | null
  firstFrameAt: number | null
  framesSent: number
  underruns: number
  underrunMs: number
  /** The event loop fired a timer so late that the client ran dry though audio was ready. */
  stalls: number
  stallMs: number
  /** A later phrase's audio came after the one before had played out: a gap between phrases. */
  phraseGaps: number
  phraseGapMs: number
}

/**
 * Why nothing is being sent: 'none' (sending), 'idle' (no audio, before the first frame of a
 * segment or between phrases), 'starved' (the playing segment ran dry before its end), 'paused'.
 */
export type PlayoutWait = 'none' | 'idle' | 'starved' | 'paused'

export const emptyMetrics = (): PlayoutMetrics => ({
  firstChunkAt: null,
  firstFrameAt: null,
  framesSent: 0,
  underruns: 0,
  underrunMs: 0,
  stalls: 0,
  stallMs: 0,
  phraseGaps: 0,
  phraseGapMs: 0,
})

/** Counts a gap of `gapMs` (> 0) the client spent with nothing to play, by why nothing was sent. */
export function countGap(m: PlayoutMetrics, wait: PlayoutWait, gapMs: number): void {
  if (wait === 'starved') {
    m.underruns++
    m.underrunMs += gapMs
  } else if (wait === 'none') {
    m.stalls++
    m.stallMs += gapMs
  } else if (m.framesSent > 0) {
    // Idle after the turn's first frame: the next phrase was not there when the last ended. (A
    // pause that is resumed lands here too: its gap counts as a phrase gap.)
    m.phraseGaps++
    m.phraseGapMs += gapMs
  }
}
