/**
 * The media worker's packets waiting for their time, a pure core: each packet is copied into a
 * fixed slot (so the ring's room goes back at once and dgram may read the slot until its send
 * callback), and slots wait in a min-heap on (due time, arrival order), so two packets due in the
 * same instant leave in the order they came. No allocation per packet.
 *
 * Bounded: `slots` packets wait or fly at most; `add` refuses one more (the caller counts it).
 */
export const SLOT_BYTES = 512

export class SendSchedule {
  /** Slot i's bytes are data[i * SLOT_BYTES, + length[i]). */
  readonly data: Buffer
  readonly due: Float64Array
  readonly pair: Uint32Array
  readonly channel: Uint8Array
  readonly sequenced: Uint8Array
  readonly length: Uint16Array
  readonly port: Uint16Array
  readonly address: string[]
  private readonly order: Float64Array
  private readonly heap: Int32Array
  private heapSize = 0
  private readonly freeSlots: Int32Array
  private freeCount: number
  private arrivals = 0

  constructor(readonly slots: number) {
    if (!(Number.isInteger(slots) && slots > 0)) throw new RangeError(`slots must be a positive integer, got ${slots}`)
    this.data = Buffer.alloc(slots * SLOT_BYTES)
    this.due = new Float64Array(slots)
    this.order = new Float64Array(slots)
    this.pair = new Uint32Array(slots)
    this.channel = new Uint8Array(slots)
    this.sequenced = new Uint8Array(slots)
    this.length = new Uint16Array(slots)
    this.port = new Uint16Array(slots)
    this.address = new Array<string>(slots).fill('')
    this.heap = new Int32Array(slots)
    this.freeSlots = new Int32Array(slots)
    for (let i = 0; i < slots; i++) this.freeSlots[i] = slots - 1 - i
    this.freeCount = slots
  }

  /** Packets waiting for their time (not those sent and not yet released). */
  get waiting(): number {
    return this.heapSize
  }

  /** The earliest due time, or Infinity when nothing waits. */
  nextDue(): number {
    return this.heapSize > 0 ? this.due[this.heap[0]!]! : Number.POSITIVE_INFINITY
  }

  /** Queues a packet; its bytes are copied. Returns its slot, or -1 when every slot is taken or it is too long. */
  add(pair: number, channel: number, sequenced: boolean, due: number, address: string, port: number, bytes: Uint8Array): number {
    if (this.freeCount === 0 || bytes.length > SLOT_BYTES) return -1
    const slot = this.freeSlots[--this.freeCount]!
    this.data.set(bytes, slot * SLOT_BYTES)
    this.due[slot] = due
    this.order[slot] = this.arrivals++
    this.pair[slot] = pair
    this.channel[slot] = channel
    this.sequenced[slot] = sequenced ? 1 : 0
    this.length[slot] = bytes.length
    this.port[slot] = port
    this.address[slot] = address
    this.heap[this.heapSize] = slot
    this.up(this.heapSize++)
    return slot
  }

  /** Takes every packet due by `now`, earliest first; each visited slot stays taken until release(). */
  takeDue(now: number, visit: (slot: number) => void): number {
    let n = 0
    while (this.heapSize > 0 && this.due[this.heap[0]!]! <= now) {
      const slot = this.heap[0]!
      this.removeAt(0)
      n++
      visit(slot)
    }
    return n
  }

  /** A slot's packet has left (its send callback ran): the slot is free. */
  release(slot: number): void {
    this.address[slot] = ''
    this.freeSlots[this.freeCount++] = slot
  }

  /**
   * Drops the waiting packets of `pair` that `which` names (a barge-in drops the audio still
   * waiting; a closing pair drops everything): their slots are freed at once. Returns the
   * sequenced packets dropped and their bytes.
   */
  drop(pair: number, which: 'sequenced' | 'all'): { packets: number; octets: number } {
    let packets = 0
    let octets = 0
    let kept = 0
    for (let i = 0; i < this.heapSize; i++) {
      const slot = this.heap[i]!
      if (this.pair[slot] === pair && (which === 'all' || this.sequenced[slot] === 1)) {
        if (this.sequenced[slot] === 1) {
          packets++
          octets += this.length[slot]!
        }
        this.release(slot)
      } else this.heap[kept++] = slot
    }
    if (kept !== this.heapSize) {
      this.heapSize = kept
      for (let i = (kept >> 1) - 1; i >= 0; i--) this.down(i)
    }
    return { packets, octets }
  }

  /** The slot's bytes, a view valid until release(). */
  bytesOf(slot: number): Buffer {
    const start = slot * SLOT_BYTES
    return this.data.subarray(start, start + this.length[slot]!)
  }

  private before(a: number, b: number): boolean {
    const da = this.due[a]!
    const db = this.due[b]!
    return da < db || (da === db && this.order[a]! < this.order[b]!)
  }

  private removeAt(i: number): void {
    const last = this.heap[--this.heapSize]!
    if (i === this.heapSize) return
    this.heap[i] = last
    this.down(i)
    this.up(i)
  }

  private up(i: number): void {
    const heap = this.heap
    const slot = heap[i]!
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.before(slot, heap[parent]!)) break
      heap[i] = heap[parent]!
      i = parent
    }
    heap[i] = slot
  }

  private down(i: number): void {
    const heap = this.heap
    const n = this.heapSize
    const slot = heap[i]!
    for (;;) {
      let child = 2 * i + 1
      if (child >= n) break
      if (child + 1 < n && this.before(heap[child + 1]!, heap[child]!)) child++
      if (!this.before(heap[child]!, slot)) break
      heap[i] = heap[child]!
      i = child
    }
    heap[i] = slot
  }
}
