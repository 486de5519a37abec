/**
 * Short-lived typed arrays cut from shared 64 KiB slabs: one ArrayBuffer per slab instead of one per
 * array. Why: V8 sweeps every ArrayBuffer that has a backing store of its own at each scavenge, on
 * the main thread. The per-frame path (caller frames, VAD windows, playout frames) made one per
 * frame and window, and at 50 calls the sweep was a large part of each scavenge pause
 * (--trace-gc-nvp: sweep_array_buffers 1.6 ms of ~4.7 on average, 0.3 ms with slabs), the pauses
 * that made agent audio late.
 *
 * A slab stays alive while any array cut from it does, so use these only for arrays that die
 * young (frames in flight), never for what is kept (caches, recordings). Regions are never reused,
 * so every array starts zeroed, as `new Int16Array(n)` does. Large requests get a buffer of their own.
 */
const SLAB_BYTES = 64 * 1024
const LARGEST = SLAB_BYTES / 8

let slab = new ArrayBuffer(SLAB_BYTES)
let used = 0

function take(bytes: number): [ArrayBuffer, number] {
  if (bytes > LARGEST) return [new ArrayBuffer(bytes), 0]
  // 8-byte alignment serves every element type.
  const size = (bytes + 7) & ~7
  if (used + size > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES)
    used = 0
  }
  const at = used
  used += size
  return [slab, at]
}

/** A zeroed Int16Array of `length` samples, cut from the current slab. */
export function slabInt16(length: number): Int16Array<ArrayBuffer> {
  const [buf, at] = take(length * 2)
  return new Int16Array(buf, at, length)
}

/** A zeroed Float32Array of `length` values, cut from the current slab. */
export function slabFloat32(length: number): Float32Array<ArrayBuffer> {
  const [buf, at] = take(length * 4)
  return new Float32Array(buf, at, length)
}
