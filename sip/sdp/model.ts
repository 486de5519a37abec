// The session description as data (RFC 8866 §5), in the order its lines are written. Values are
// kept as received, so serializeSdp(parseSdp(x)) writes every line back, unknown attributes too.

/** Media direction (RFC 3264 §5.1, RFC 8866 §6.7). Absent everywhere, a stream is sendrecv. */
export type SdpDirection = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive'

/** o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address> (§5.2). */
export interface SdpOrigin {
  readonly username: string
  /** Decimal digits, kept as text: many agents use 64-bit NTP-derived numbers. */
  readonly sessionId: string
  /** Decimal digits; RFC 3264 §8 asks for one more each time the description changes. */
  readonly sessionVersion: string
  readonly netType: string
  readonly addrType: string
  readonly address: string
}

/** c=<nettype> <addrtype> <connection-address> (§5.7). */
export interface SdpConnection {
  readonly netType: string
  readonly addrType: string
  /** The address without the multicast suffixes: an IP literal, or a domain name. */
  readonly address: string
  /** IP4 multicast only: the first "/ttl" suffix. */
  readonly ttl?: number
  /** Multicast: the "/<number of addresses>" suffix. */
  readonly addressCount?: number
}

/** b=<bwtype>:<bandwidth> (§5.8): kilobits per second for CT and AS, bits per second for TIAS (RFC 3890). */
export interface SdpBandwidth {
  readonly type: string
  readonly value: number
}

/** t=<start-time> <stop-time> (§5.9), NTP seconds as decimal text, with its r= lines verbatim. */
export interface SdpTiming {
  readonly start: string
  readonly stop: string
  readonly repeats: readonly string[]
}

/** a=<name>[:<value>] (§5.13). `value` is undefined for a property attribute such as a=sendrecv. */
export interface SdpAttribute {
  readonly name: string
  readonly value?: string
}

/** m=<media> <port>[/<number of ports>] <proto> <fmt> ... and its i=, c=, b=, k=, a= lines (§5.14). */
export interface SdpMedia {
  readonly type: string
  readonly port: number
  readonly portCount?: number
  readonly proto: string
  /** RTP payload type numbers as text for RTP profiles; tokens for other protocols. */
  readonly formats: readonly string[]
  readonly title?: string
  readonly connections: readonly SdpConnection[]
  readonly bandwidths: readonly SdpBandwidth[]
  /** k= (§5.12, obsolete): kept verbatim, never used. */
  readonly key?: string
  readonly attributes: readonly SdpAttribute[]
}

export interface SessionDescription {
  readonly origin: SdpOrigin
  /** s= (§5.3); "-" or " " when the session has no name. */
  readonly sessionName: string
  readonly information?: string
  readonly uri?: string
  readonly emails: readonly string[]
  readonly phones: readonly string[]
  readonly connection?: SdpConnection
  readonly bandwidths: readonly SdpBandwidth[]
  /** At least one; "t=0 0" for a SIP call (RFC 3264 §5). */
  readonly timings: readonly SdpTiming[]
  /** z= verbatim. */
  readonly timeZones?: string
  readonly key?: string
  readonly attributes: readonly SdpAttribute[]
  readonly media: readonly SdpMedia[]
}
