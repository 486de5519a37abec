/**
 * Which datagrams are the peer's: those from the negotiated address and port. With `latch`, the
 * peer's first valid packet from the negotiated address but another port moves our send target to
 * that port, once (symmetric RTP, RFC 4961, as SBCs "latch" for a peer behind a NAT that rewrites
 * ports but not its public address). Only the port is latched, never the address: a stranger who
 * guesses our port must not be able to take over the call's media (the attack RFC 7362 §3 warns
 * of); a peer whose SDP carries a private address is the SIP side's to fix (its Via/Contact
 * received address). A new negotiation makes a new filter, so a re-INVITE resets the latch.
 */
import net from 'node:net'

export type SourceVerdict = 'accept' | 'latch' | 'wrong_address' | 'wrong_port'

export class RemoteSource {
  /** The forms rinfo.address takes for the peer: canonical, and IPv4-mapped on a dual-stack socket. */
  private readonly addresses: readonly string[]
  private latchedPort: number | undefined

  constructor(
    readonly address: string,
    readonly port: number,
    private readonly latch: boolean,
  ) {
    const canonical = canonicalAddress(address)
    this.addresses = net.isIPv4(canonical) ? [canonical, `::ffff:${canonical}`] : [canonical]
  }

  /** Where to send to: the latched port once there is one. */
  get sendPort(): number {
    return this.latchedPort ?? this.port
  }

  get latched(): boolean {
    return this.latchedPort !== undefined
  }

  /** The verdict on a datagram's source. 'latch': accept it, and call latchTo once it proved to be valid RTP. */
  check(address: string, port: number): SourceVerdict {
    if (!this.addresses.includes(address)) return 'wrong_address'
    if (port === this.port || port === this.latchedPort) return 'accept'
    return this.latch && this.latchedPort === undefined ? 'latch' : 'wrong_port'
  }

  latchTo(port: number): void {
    if (this.latch && this.latchedPort === undefined) this.latchedPort = port
  }
}

/**
 * One spelling per address, as the socket reports sources: IPv6 compressed and lower case (the
 * WHATWG URL parser writes RFC 5952's form, as inet_ntop does), IPv4-mapped IPv6 as plain IPv4.
 */
export function canonicalAddress(address: string): string {
  if (!net.isIPv6(address)) return address
  const compact = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compact)
  if (!mapped) return compact
  const high = Number.parseInt(mapped[1]!, 16)
  const low = Number.parseInt(mapped[2]!, 16)
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`
}

/** 0.0.0.0 or :: — RFC 3264 §8.4's hold: neither RTP nor RTCP goes there. */
export function isUnspecified(address: string): boolean {
  return address === '0.0.0.0' || (net.isIPv6(address) && canonicalAddress(address) === '::')
}
