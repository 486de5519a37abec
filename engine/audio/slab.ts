/**
 * Short-lived typed arrays cut from shared 8 KiB slabs: one ArrayBuffer per slab instead of one per
 * array. Why: V8 sweeps every ArrayBuffer that has a backing store of its own at each scavenge, on
 * the main thread. The per-frame path (caller frames, VAD windows, playout frames) made one per
 * frame and window, and at 50 calls the sweep was a large part of each scavenge pause
 * (--trace-gc-nvp: sweep_array_buffers 1.6 ms of ~4.7 on average, 0.3 ms with slabs), the pauses
 * that made agent audio late. (VAD windows and Silero's inputs have since become reused arrays,
 * which allocate nothing at all: better still where the lifetime allows it.)
 *
 * A slab stays alive while any array cut from it does, so use these only for arrays that die
 * young (frames in flight), never for what is kept (caches, recordings). Regions are never reused,
 * so every array starts zeroed, as `new Int16Array(n)` does. Requests over half a slab get a buffer
 * of their own.
 *
 * Why 8 KiB, not 64: one array that outlives two young GCs (a frame an STT socket still queues, a
 * window waiting for inference) takes its whole slab into the old generation, where only a full
 * GC frees it, and V8 starts a full GC whenever ArrayBuffer memory has grown 64 MB since the last.
 * With 64 KiB slabs, at 200–225 phone calls, ~45 MB of ArrayBuffers stayed held after each full
 * GC (slabs pinned by a few arrays) and a full GC came every 15–30 s; with 8 KiB, 12 MB and one
 * in ~80 s, and young GCs got shorter too (4.7 → 3.9 ms on average: `--trace-gc`, sip-calls bench,
 * 2026-11-28). What is cut here now is frames in flight: a call's caller and playout frames.
 */
const SLAB_BYTES = 8 * 1024
const LARGEST = SLAB_BYTES / 2

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
