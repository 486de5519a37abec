import type { SdpOrigin } from './model.js'
import type { NegotiatedMedia } from './negotiated.js'

/** What a negotiation changed against the one before it, for the RTP layer to follow. */
export interface SdpChanges {
  /** The session's first negotiation: every other flag is then true or 'held' as it applies. */
  readonly initial: boolean
  /** The peer's RTP or RTCP address or port changed: the RTP latch must follow. */
  readonly remoteTransport: boolean
  /** Codec, payload types or packet time changed. */
  readonly codec: boolean
  /** Our direction changed. */
  readonly direction: boolean
  /** The peer put the call on hold (a=sendonly, a=inactive, c=0.0.0.0), or took it off hold. */
  readonly remoteHold: 'held' | 'resumed' | undefined
  /**
   * The peer's o= against its previous one (RFC 3264 §8): the same version (nothing changed), one
   * more, or 'irregular' (another origin or a jump: some B2BUAs do this after a transfer; the
   * description is read all the same).
   */
  readonly remoteVersion: 'initial' | 'unchanged' | 'incremented' | 'irregular'
}

export function remoteVersionStep(previous: SdpOrigin | undefined, next: SdpOrigin): SdpChanges['remoteVersion'] {
  if (!previous) return 'initial'
  const sameOrigin =
    previous.username === next.username &&
    previous.sessionId === next.sessionId &&
    previous.netType === next.netType &&
    previous.addrType === next.addrType &&
    previous.address === next.address
  if (!sameOrigin) return 'irregular'
  const before = BigInt(previous.sessionVersion)
  const after = BigInt(next.sessionVersion)
  if (after === before) return 'unchanged'
  return after === before + 1n ? 'incremented' : 'irregular'
}

export function changesBetween(previous: NegotiatedMedia | undefined, next: NegotiatedMedia, remoteVersion: SdpChanges['remoteVersion']): SdpChanges {
  if (!previous) {
    return { initial: true, remoteTransport: true, codec: true, direction: true, remoteHold: next.onHold ? 'held' : undefined, remoteVersion }
  }
  const differs = (keys: ReadonlyArray<keyof NegotiatedMedia>) => keys.some((key) => previous[key] !== next[key])
  return {
    initial: false,
    remoteTransport: differs(['remoteAddress', 'remotePort', 'rtcpAddress', 'rtcpPort', 'rtcpMux']),
    codec: differs(['codec', 'payloadType', 'dtmfPayloadType', 'ptimeMs']),
    direction: previous.direction !== next.direction,
    remoteHold: previous.onHold === next.onHold ? undefined : next.onHold ? 'held' : 'resumed',
    remoteVersion,
  }
}
