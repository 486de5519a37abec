import { endianness } from 'node:os'

/** Typed arrays use the host's byte order; PCM16 on the wire is little-endian. */
export const LITTLE_ENDIAN_HOST = endianness() === 'LE'

/**
 * Little-endian PCM16 bytes → samples. Always copies: socket buffers are pooled and reused, and
 * an Int16Array view also needs an even byte offset the caller's buffer may not have.
 */
export function pcmFromBytes(buf: Buffer | Uint8Array): Int16Array {
  if (buf.byteLength % 2 !== 0) {
    throw new RangeError(`PCM16 needs an even number of bytes, got ${buf.byteLength}`)
  }
  if (LITTLE_ENDIAN_HOST) return new Int16Array(Uint8Array.from(buf).buffer)
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  const out = new Int16Array(buf.byteLength / 2)
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true)
  return out
}

/** Samples → little-endian PCM16 bytes, in a Buffer of its own (safe to hand to a socket). */
export function pcmToBytes(pcm: Int16Array): Buffer {
  if (LITTLE_ENDIAN_HOST) return Buffer.from(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength))
  const out = Buffer.allocUnsafe(pcm.length * 2)
  for (let i = 0; i < pcm.length; i++) out.writeInt16LE(pcm[i]!, i * 2)
  return out
}

/**
 * Samples as little-endian PCM16 bytes *without* a copy where the host is little-endian (a copy
 * elsewhere). For handing audio to a socket that copies or keeps it as it is: the samples must not
 * change afterwards. Per frame, a copy is an allocation V8 counts as external memory, and enough of
 * those start full GCs (slab.ts says what those cost).
 */
export function pcmView(pcm: Int16Array): Uint8Array {
  return LITTLE_ENDIAN_HOST ? new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength) : pcmToBytes(pcm)
}

/**
 * Whole little-endian PCM16 samples in `buf` as a view where the host is little-endian and the
 * bytes are aligned, else a copy: for a consumer that reads them at once and keeps nothing (the
 * resampler copies its input).
 */
export function pcmTransient(buf: Uint8Array): Int16Array {
  if (LITTLE_ENDIAN_HOST && buf.byteOffset % 2 === 0 && buf.byteLength % 2 === 0) return new Int16Array(buf.buffer, buf.byteOffset, buf.byteLength / 2)
  return pcmFromBytes(buf)
}

/** Samples scaled to [-1, 1), the range the ONNX models were trained on. */
export function toFloat32(pcm: Int16Array): Float32Array {
  const out = new Float32Array(pcm.length)
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i]! / 32768
  return out
}

/** Root mean square on a 0..1 scale (1 = a full-scale square wave); 0 for no samples. */
export function rms(pcm: Int16Array): number {
  if (pcm.length === 0) return 0
  let sum = 0
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!
  return Math.sqrt(sum / pcm.length) / 32768
}
