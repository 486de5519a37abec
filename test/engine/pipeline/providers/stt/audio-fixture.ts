/**
 * Audio for the STT tests: speech from the shared espeak-ng helper (test/helpers/speech.ts, which
 * fails on CI when espeak-ng is missing and skips elsewhere), fed to a stream frame by frame.
 */
import { FRAME_SAMPLES } from '../../../../../engine/audio/index.js'

export { concat, silence, skipWithoutEspeak, speak } from '../../../../helpers/speech.js'

/**
 * Feeds `pcm` in 20 ms frames, `speed` times faster than real time (Infinity: as fast as the
 * event loop allows, yielding between frames so sockets keep flowing).
 */
export async function stream(pcm: Int16Array, push: (frame: Int16Array) => void, speed = 1): Promise<void> {
  const started = performance.now()
  for (let at = 0, n = 0; at < pcm.length; at += FRAME_SAMPLES, n++) {
    push(pcm.slice(at, at + FRAME_SAMPLES))
    const wait = started + ((n + 1) * 20) / speed - performance.now()
    await new Promise((r) => (Number.isFinite(wait) && wait > 0 ? setTimeout(r, wait) : setImmediate(r)))
  }
}
