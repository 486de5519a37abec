/**
 * Packet loss concealment, simplified from the idea of G.711 Appendix I: a missing frame is
 * replaced by the last good frame played again, faded out linearly over `fadeFrames` frames
 * (gain 1 → 2/3 over the first, 2/3 → 1/3 over the second, 1/3 → 0 over the third at the
 * default 3), then silence. Appendix I repeats the last pitch period with overlap-add at the
 * seams; repeating a whole 20 ms frame is cruder (a click can sit at the seam) but costs one
 * multiply per sample and keeps short losses, the common case, hardly audible.
 */

/** Writes concealment frame `run` (1 for the first missing frame in a row) into `out`. */
export function concealFrame(last: Int16Array, out: Int16Array, run: number, fadeFrames: number): void {
  if (run > fadeFrames || fadeFrames <= 0) {
    out.fill(0)
    return
  }
  const startGain = 1 - (run - 1) / fadeFrames
  const step = 1 / fadeFrames / out.length
  for (let i = 0; i < out.length; i++) out[i] = Math.round((last[i] ?? 0) * (startGain - step * i))
}
