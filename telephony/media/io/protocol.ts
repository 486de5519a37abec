/**
 * What the main thread and the media worker say to each other (worker-io.ts, worker.ts).
 *
 * Per packet, records in two rings (byte-ring.ts), little-endian, at a record's offset:
 *
 *     0  kind u8          SEND, FLUSH, CLOSE (to the worker); DATAGRAM (from it)
 *     1  channel u8       0 RTP, 1 RTCP
 *     2  flags u8         SEQUENCED: an RTP data packet, numbered by the worker as it leaves
 *     3  address length u8
 *     4  pair u32         the port pair's id
 *     8  time f64         SEND: when it should leave; DATAGRAM: when it came; both on the main
 *                         thread's performance.now() scale (timebase.ts)
 *    16  port u16         the peer's
 *    18  payload length u16
 *    20  address          ASCII (an IP literal)
 *    20+n payload
 *
 * Rare things (binding a pair, errors, a flush's count) go as messages.
 */
export const RECORD_HEADER_BYTES = 20
/** Longest IP literal: an IPv6 address with a zone is under 64 characters. */
export const MAX_ADDRESS_BYTES = 64
/** Largest datagram either way: more than any RTP or RTCP packet we take or send (≤ 60 ms of G.711 + headers). */
export const MAX_DATAGRAM_BYTES = 1500

/** How often the worker reads its ring while calls are up, at the latest: a packet written for later than this does not ring it. */
export const POLL_MS = 5

export const KIND_SEND = 1
export const KIND_FLUSH = 2
export const KIND_CLOSE = 3
export const KIND_DATAGRAM = 4

export const FLAG_SEQUENCED = 1

export const CHANNELS = ['rtp', 'rtcp'] as const
export type Channel = (typeof CHANNELS)[number]

/** Main → worker. */
export type ToWorker = { type: 'bind'; request: number; host: string } | { type: 'stop' }

/** Worker → main. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'bound'; request: number; pair: number; rtpPort: number; rtcpPort: number }
  | { type: 'bind_failed'; request: number; code: string; message: string }
  /** A flush dropped these sequenced packets before they left: the sender's counts go down. */
  | { type: 'unsent'; pair: number; packets: number; octets: number }
  | { type: 'send_error'; pair: number; message: string }
  | { type: 'socket_error'; pair: number; channel: Channel; message: string }
  /** Records refused by a full ring, and sends that found no free slot, since the last report. */
  | { type: 'overflow'; toWorker: number; fromWorker: number }

export interface WorkerInit {
  readonly toWorker: SharedArrayBuffer
  readonly fromWorker: SharedArrayBuffer
  readonly workerBell: SharedArrayBuffer
  readonly mainBell: SharedArrayBuffer
  /** The main thread's performance.now() minus its monotonic clock in ms (timebase.ts). */
  readonly mainOffsetMs: number
  readonly minPort: number
  readonly maxPort: number
}

/** Writes an IP literal's ASCII at `at`; returns its length, or -1 when it is not one we carry. */
export function writeAddress(bytes: Uint8Array, at: number, address: string): number {
  const n = address.length
  if (n > MAX_ADDRESS_BYTES) return -1
  for (let i = 0; i < n; i++) bytes[at + i] = address.charCodeAt(i) & 0x7f
  return n
}

/**
 * The address a record names, as a string, without making one per packet: a peer sends from one
 * address, so the last one decoded is kept and compared byte by byte.
 */
export class AddressCache {
  private readonly last = new Uint8Array(MAX_ADDRESS_BYTES)
  private lastLength = -1
  private lastText = ''

  read(bytes: Uint8Array, at: number, length: number): string {
    if (length === this.lastLength) {
      let same = true
      for (let i = 0; i < length; i++) {
        if (bytes[at + i] !== this.last[i]) {
          same = false
          break
        }
      }
      if (same) return this.lastText
    }
    let text = ''
    for (let i = 0; i < length; i++) text += String.fromCharCode(bytes[at + i]!)
    this.last.set(bytes.subarray(at, at + length))
    this.lastLength = length
    this.lastText = text
    return text
  }
}
