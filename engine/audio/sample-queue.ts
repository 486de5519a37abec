/**
 * A FIFO of 16-bit samples kept in fixed-size blocks that its owner reuses for as long as it lives.
 *
 * Why: agent audio waits seconds between TTS and the wire (providers send faster than real time).
 * Held as the arrays TTS produced, every chunk outlived two scavenges, was promoted, and became
 * garbage only a full GC frees; V8 starts a full GC per 64 MB of such ArrayBuffer memory, and at
 * 100 calls that was one every ~10 s, each stalling every call's audio by 50–100 ms (bench/README.md).
 * Copied into blocks at once, the chunks die young; the blocks are allocated once per owner and are
 * never garbage while it lives.
 *
 * A pool belongs to one owner (one call's playout) and keeps what it allocated until the owner is
 * garbage: its memory is the owner's peak of queued audio. Blocks never travel between calls, so a
 * release-too-early bug cannot play one call's audio in another.
 */
export const BLOCK_SAMPLES = 4096

export class BlockPool {
  private readonly free: Int16Array[] = []
  /** Blocks this pool has ever allocated (its memory is allocated × BLOCK_SAMPLES × 2 bytes). */
  allocated = 0

  take(): Int16Array {
    const b = this.free.pop()
    if (b) return b
    this.allocated++
    return new Int16Array(BLOCK_SAMPLES)
  }

  give(block: Int16Array): void {
    this.free.push(block)
  }
}

export class SampleQueue {
  private readonly blocks: Int16Array[] = []
  /** Read position in blocks[0], write position in the last block. */
  private head = 0
  private tail = BLOCK_SAMPLES
  private size = 0

  constructor(private readonly pool: BlockPool) {}

  /** Samples queued. */
  get length(): number {
    return this.size
  }

  /** Copies `pcm` in; the caller may reuse or drop it at once. */
  write(pcm: Int16Array): void {
    let at = 0
    while (at < pcm.length) {
      if (this.tail === BLOCK_SAMPLES) {
        this.blocks.push(this.pool.take())
        this.tail = 0
      }
      const n = Math.min(BLOCK_SAMPLES - this.tail, pcm.length - at)
      this.blocks[this.blocks.length - 1]!.set(pcm.subarray(at, at + n), this.tail)
      this.tail += n
      at += n
    }
    this.size += pcm.length
  }

  /** Moves up to `n` samples into `out` from `offset`; returns how many it moved. */
  read(out: Int16Array, offset: number, n: number): number {
    const want = Math.min(n, this.size, out.length - offset)
    let moved = 0
    while (moved < want) {
      const block = this.blocks[0]!
      const end = this.blocks.length === 1 ? this.tail : BLOCK_SAMPLES
      const k = Math.min(want - moved, end - this.head)
      out.set(block.subarray(this.head, this.head + k), offset + moved)
      moved += k
      this.head += k
      if (this.head === end) this.release()
    }
    this.size -= moved
    return moved
  }

  /** Drops everything queued; the blocks go back to the pool. */
  clear(): void {
    while (this.blocks.length > 0) this.release()
    this.size = 0
  }

  private release(): void {
    this.pool.give(this.blocks.shift()!)
    this.head = 0
    if (this.blocks.length === 0) this.tail = BLOCK_SAMPLES
  }
}
