/**
 * A single-producer, single-consumer ring of variable-length records in a SharedArrayBuffer: how
 * the media worker and the main thread hand each other datagrams without a message (and a
 * structured clone) per packet. One thread writes, the other reads; each side keeps its own
 * index and publishes it with Atomics, whose sequentially consistent stores and loads order the
 * plain byte writes before them (ECMAScript memory model), so a record is whole once its writer's
 * index says so.
 *
 * Layout: 8 bytes of indexes (write, read), then the data. A record is a 4-byte length and its
 * bytes, padded to 4; a record that does not fit before the end leaves a WRAP marker and starts at
 * 0. One byte of the data is never used, so equal indexes always mean empty. A full ring refuses
 * the record (`reserve` answers -1): the caller counts it dropped, as a full socket buffer would.
 */
const WRITE = 0
const READ = 1
const INDEX_BYTES = 8
const LENGTH_BYTES = 4
const WRAP = 0xffff_ffff

export class ByteRing {
  /** The data region: records are written to and read from here, at the offsets the ring gives. */
  readonly bytes: Uint8Array
  readonly view: DataView
  readonly capacity: number
  private readonly indexes: Int32Array
  /** This side's copy of its own index (the producer's write, the consumer's read). */
  private writeAt: number
  private readAt: number
  private reserved = -1
  private reservedEnd = 0

  /** A new ring's memory: `capacity` bytes of data (a multiple of 4, at least 64). */
  static allocate(capacity: number): SharedArrayBuffer {
    if (!(Number.isInteger(capacity) && capacity >= 64 && capacity % 4 === 0 && capacity < 2 ** 30))
      throw new RangeError(`a ring's capacity must be a multiple of 4 from 64 bytes to 1 GiB, got ${capacity}`)
    return new SharedArrayBuffer(INDEX_BYTES + capacity)
  }

  constructor(memory: SharedArrayBuffer) {
    this.indexes = new Int32Array(memory, 0, 2)
    this.capacity = memory.byteLength - INDEX_BYTES
    this.bytes = new Uint8Array(memory, INDEX_BYTES, this.capacity)
    this.view = new DataView(memory, INDEX_BYTES, this.capacity)
    this.writeAt = Atomics.load(this.indexes, WRITE)
    this.readAt = Atomics.load(this.indexes, READ)
  }

  /** The largest record the ring can ever take. */
  get maxRecord(): number {
    return this.capacity - LENGTH_BYTES - 4
  }

  /**
   * Producer: room for a record of `length` bytes. Returns the offset in `bytes` to write it at,
   * or -1 when the ring has no room now (the record is to be dropped). Then `commit()`.
   */
  reserve(length: number): number {
    if (!(length >= 0 && length <= this.maxRecord)) return -1
    const need = (LENGTH_BYTES + length + 3) & ~3
    const read = Atomics.load(this.indexes, READ)
    let at = this.writeAt
    if (at >= read) {
      const tail = this.capacity - at
      // Filling the tail exactly while the reader is at 0 would wrap the write index onto it.
      if (tail < need || (tail === need && read === 0)) {
        if (read <= need) return -1
        if (tail >= LENGTH_BYTES) this.view.setUint32(at, WRAP, true)
        at = 0
      }
    } else if (read - at <= need) return -1
    this.view.setUint32(at, length, true)
    this.reserved = at
    this.reservedEnd = at + need === this.capacity ? 0 : at + need
    return at + LENGTH_BYTES
  }

  /** Producer: the reserved record is written; the reader may take it. */
  commit(): void {
    if (this.reserved < 0) throw new Error('ByteRing.commit() without reserve()')
    this.writeAt = this.reservedEnd
    this.reserved = -1
    Atomics.store(this.indexes, WRITE, this.writeAt)
  }

  /** Bytes of records not yet read, as either side sees it now. */
  get usedBytes(): number {
    const used = Atomics.load(this.indexes, WRITE) - Atomics.load(this.indexes, READ)
    return used >= 0 ? used : used + this.capacity
  }

  /** Consumer: true when a record waits. */
  get pending(): boolean {
    return Atomics.load(this.indexes, WRITE) !== this.readAt
  }

  /**
   * Consumer: visits every whole record in order, at most `max`, with its offset and length in
   * `bytes`; each record's room is given back once its visit returns. Returns how many it visited.
   */
  read(visit: (offset: number, length: number) => void, max = Number.POSITIVE_INFINITY): number {
    const write = Atomics.load(this.indexes, WRITE)
    let at = this.readAt
    let n = 0
    while (at !== write && n < max) {
      if (this.capacity - at < LENGTH_BYTES || this.view.getUint32(at, true) === WRAP) {
        at = 0
        continue
      }
      const length = this.view.getUint32(at, true)
      visit(at + LENGTH_BYTES, length)
      n++
      at += (LENGTH_BYTES + length + 3) & ~3
      if (at === this.capacity) at = 0
      this.readAt = at
      Atomics.store(this.indexes, READ, at)
    }
    this.readAt = at
    Atomics.store(this.indexes, READ, at)
    return n
  }
}
