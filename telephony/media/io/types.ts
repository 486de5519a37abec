/**
 * Where a call's RTP and RTCP meet the network: a port pair bound for the SDP, packets out,
 * datagrams in. Two kinds: the media worker's (worker-io.ts: packets leave at their time from
 * another thread, the default) and the main thread's own sockets (inline-io.ts).
 */
import type { Channel } from './protocol.js'

export type { Channel }

export interface MediaIo {
  /**
   * Binds the next free RTP/RTCP pair on `host` (an IP literal). Rejects with PortsExhausted when
   * none is left, or with the bind's error (an address this host does not have).
   */
  allocate(host: string): Promise<MediaEndpoint>
  /** Closes every pair and frees what the io holds. */
  close(): Promise<void>
}

/** What an endpoint tells its call. */
export interface EndpointHandlers {
  /** A datagram from the network: `bytes` are valid during the call only; `atMs` is when it came (performance.now()). */
  datagram(channel: Channel, bytes: Uint8Array, address: string, port: number, atMs: number): void
  /** Sequenced packets dropped by dropUnsent() before they left: the sender counts them unsent. */
  unsent(packets: number, octets: number): void
  sendError(message: string): void
  socketError(channel: Channel, message: string): void
  /** The endpoint stopped for good without close() (its worker died): the call has no media. */
  lost(reason: string): void
}

export interface MediaEndpoint {
  readonly host: string
  readonly rtpPort: number
  readonly rtcpPort: number
  listen(handlers: EndpointHandlers): void
  /**
   * A packet to `address:port` (an IP literal), to leave at `sendAtMs` (performance.now(); now or
   * earlier: at once). `sequenced`: an RTP data packet whose sequence number the io may rewrite so
   * the packets that leave are numbered without holes. The bytes are read before send() returns.
   */
  send(channel: Channel, bytes: Uint8Array, address: string, port: number, sendAtMs: number, sequenced: boolean): void
  /** Barge-in: sequenced packets not yet left are dropped (the handlers' `unsent` says how many). */
  dropUnsent(): void
  /** Delivers what has come in by now (the receive tick calls it before it pulls a frame). */
  pump(): void
  /** Packets already due still leave; the ports go back. Idempotent. */
  close(): void
}
