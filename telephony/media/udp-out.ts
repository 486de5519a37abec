/**
 * Sending on a bound UDP socket without allocating per packet and without reusing a buffer the
 * socket still reads. dgram may read the bytes after send() returns (when the kernel queue is full
 * libuv keeps the buffer until the write), and the RTP sender rewrites its one buffer for every
 * packet. So each packet is copied into a slot of a fixed ring, held until its send callback; if
 * every slot is still held (thousands of packets stuck in the kernel), the packet gets a buffer
 * of its own, counted. Addresses are IP literals, so the socket's lookup answers at once
 * (`literalLookup`): a send reaches the socket in the same tick, and a BYE sent just before
 * close() still goes out.
 */
import type dgram from 'node:dgram'
import net from 'node:net'

const SLOTS = 16
/** Largest RTP packet we send: 12 octets of header and 60 ms of G.711. */
const SLOT_BYTES = 12 + 480

export class UdpOut {
  private readonly slots = Array.from({ length: SLOTS }, () => Buffer.alloc(SLOT_BYTES))
  /**
   * Each slot's packet as a Buffer of the packet's own length, remade only when the length
   * changes (a call's packets are all one size): send(buf, offset, length) would cut a new view
   * of the slot for every packet.
   */
  private readonly views = this.slots.map((slot) => slot.subarray(0, 0))
  private readonly busy = new Uint8Array(SLOTS)
  /** One callback per slot, made once. */
  private readonly done: Array<(err: Error | null) => void>
  private next = 0
  fallbacks = 0

  constructor(
    private readonly socket: dgram.Socket,
    private readonly onError: (err: Error) => void,
  ) {
    this.done = this.slots.map((_, i) => (err: Error | null) => {
      this.busy[i] = 0
      if (err) this.failed(err)
    })
  }

  send(bytes: Uint8Array, address: string, port: number): void {
    try {
      const slot = this.freeSlot()
      if (slot === undefined || bytes.length > SLOT_BYTES) {
        this.fallbacks++
        this.socket.send(Buffer.from(bytes), port, address, (err) => err && this.failed(err))
        return
      }
      this.slots[slot]!.set(bytes)
      this.busy[slot] = 1
      let view = this.views[slot]!
      if (view.length !== bytes.length) this.views[slot] = view = this.slots[slot]!.subarray(0, bytes.length)
      this.socket.send(view, port, address, this.done[slot])
    } catch (err) {
      // The socket closed under us (ERR_SOCKET_DGRAM_NOT_RUNNING): the call is over.
      this.failed(err as Error)
    }
  }

  private freeSlot(): number | undefined {
    for (let i = 0; i < SLOTS; i++) {
      const slot = (this.next + i) % SLOTS
      if (this.busy[slot] === 0) {
        this.next = (slot + 1) % SLOTS
        return slot
      }
    }
    return undefined
  }

  private failed(err: Error): void {
    this.onError(err)
  }
}

/** dgram's `lookup` for IP literals, answering synchronously (dns.lookup answers on the next tick). */
export function literalLookup(
  address: string,
  _options: unknown,
  callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void,
): void {
  const family = net.isIP(address)
  if (family === 0) callback(Object.assign(new Error(`not an IP literal: ${address}`), { code: 'EINVAL' }), address, 4)
  else callback(null, address, family)
}
