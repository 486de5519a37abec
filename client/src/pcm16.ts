/**
 * The protocol's audio format on the browser side: PCM 16-bit signed little-endian, mono, 16 kHz,
 * sent in 20 ms frames (docs/protocol.md §3). Pure: used by the AudioWorklets and Node's tests.
 */

export const PROTOCOL_RATE_HZ = 16_000
export const FRAME_MS = 20
export const FRAME_SAMPLES = (PROTOCOL_RATE_HZ * FRAME_MS) / 1000
/** 640 bytes: the frame size the protocol recommends. */
export const FRAME_BYTES = FRAME_SAMPLES * 2

/** Web Audio float (−1..1) → PCM16, clipped and rounded. */
export function floatToInt16(v: number): number {
  const s = Math.round(v * 32768)
  return Math.min(32767, Math.max(-32768, s))
}

/** PCM16 little-endian bytes → Web Audio floats (whatever the host's byte order). */
export function pcm16ToFloat(bytes: ArrayBuffer): Float32Array {
  const view = new DataView(bytes)
  const out = new Float32Array(bytes.byteLength >> 1)
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 32768
  return out
}

/**
 * Collects 16 kHz float samples into whole 20 ms PCM16LE frames. Each frame is a fresh
 * ArrayBuffer, so it can be transferred to the main thread without a copy.
 */
export class FrameAssembler {
  private frame = new DataView(new ArrayBuffer(FRAME_BYTES))
  private filled = 0

  /** Appends `count` samples of `samples`; returns the frames completed by them (often none). */
  push(samples: Float32Array, count = samples.length): ArrayBuffer[] {
    const done: ArrayBuffer[] = []
    for (let i = 0; i < count; i++) {
      this.frame.setInt16(this.filled * 2, floatToInt16(samples[i]!), true)
      if (++this.filled === FRAME_SAMPLES) {
        done.push(this.frame.buffer as ArrayBuffer)
        this.frame = new DataView(new ArrayBuffer(FRAME_BYTES))
        this.filled = 0
      }
    }
    return done
  }
}
