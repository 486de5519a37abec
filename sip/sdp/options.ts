import { addrTypeOf } from './address.js'
import { AUDIO_CODECS, type AudioCodec } from './codecs.js'
import type { SdpDirection } from './model.js'

/** Our side of the audio stream, shared by offers, answers and SdpSession. */
export interface AudioOptions {
  /** Where we receive RTP: an IPv4 or IPv6 literal (never a name: the peer would need DNS). */
  readonly address: string
  readonly port: number
  /** Written as a=rtcp (RFC 3605) when it is not port + 1. */
  readonly rtcpPort?: number
  /** The codecs we speak, in our order of preference. */
  readonly codecs?: readonly AudioCodec[]
  /** telephone-event's payload type in our offers (answers keep the offer's); null: no DTMF. */
  readonly dtmfPayloadType?: number | null
  /** What we are willing to do: sendrecv, or less. */
  readonly direction?: SdpDirection
  /** Packet time we ask for and send unless the peer asks for another we can do. */
  readonly ptimeMs?: number
  /** Packet times our packetizer can send; a peer's a=ptime among them is honoured. */
  readonly ptimesMs?: readonly number[]
  /** Offer and accept RTP and RTCP on one port (RFC 5761). Off unless the RTP layer demultiplexes. */
  readonly rtcpMux?: boolean
  /**
   * Which codec an answer picks among those both sides have. RFC 3264 §6.1: the answerer SHOULD
   * respect the offer's order, so 'offer' is the default; 'ours' follows `codecs` instead.
   */
  readonly codecOrder?: 'offer' | 'ours'
}

/** Our o= line (RFC 8866 §5.2). */
export interface OriginOptions {
  readonly sessionId: bigint | number | string
  readonly version: bigint | number | string
  readonly username?: string
  readonly sessionName?: string
}

export interface ResolvedAudio extends Required<Omit<AudioOptions, 'rtcpPort'>> {
  readonly rtcpPort?: number
  readonly addrType: 'IP4' | 'IP6'
}

export const DEFAULT_AUDIO = Object.freeze({
  codecs: Object.freeze(['PCMU', 'PCMA']) as readonly AudioCodec[],
  dtmfPayloadType: 101 as number | null,
  direction: 'sendrecv' as SdpDirection,
  ptimeMs: 20,
  ptimesMs: Object.freeze([10, 20, 30, 40]) as readonly number[],
  rtcpMux: false,
  codecOrder: 'offer' as 'offer' | 'ours',
})

const isPort = (n: unknown) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 65535

/** Defaults merged under the options, checked up front: a bad option is a programming error (RangeError). */
export function resolveAudio(options: AudioOptions): ResolvedAudio {
  const audio = { ...DEFAULT_AUDIO, ...definedOnly(options) }
  const addrType = addrTypeOf(audio.address)
  if (!addrType) throw new RangeError('SDP address must be an IPv4 or IPv6 literal')
  if (!isPort(audio.port)) throw new RangeError(`SDP port must be 1-65535, got ${audio.port}`)
  if (audio.rtcpPort !== undefined && !isPort(audio.rtcpPort)) throw new RangeError(`SDP rtcpPort must be 1-65535, got ${audio.rtcpPort}`)
  if (audio.codecs.length === 0 || audio.codecs.some((c) => !(c in AUDIO_CODECS)) || new Set(audio.codecs).size !== audio.codecs.length) {
    throw new RangeError('SDP codecs must be distinct PCMU/PCMA, at least one')
  }
  const pt = audio.dtmfPayloadType
  if (pt !== null && !(Number.isInteger(pt) && pt >= 96 && pt <= 127))
    throw new RangeError(`SDP dtmfPayloadType must be a dynamic payload type (96-127), got ${pt}`)
  if (audio.ptimesMs.some((p) => !Number.isInteger(p) || p < 1) || !audio.ptimesMs.includes(audio.ptimeMs)) {
    throw new RangeError('SDP ptimeMs must be one of ptimesMs, all positive integers')
  }
  return { ...audio, addrType }
}

export function sessionNumber(value: bigint | number | string, name: string): string {
  const text = typeof value === 'string' ? value : value.toString()
  if (!/^\d{1,20}$/.test(text) || BigInt(text) >= 2n ** 64n) throw new RangeError(`SDP ${name} must be a non-negative 64-bit integer`)
  return BigInt(text).toString()
}

function definedOnly<T extends object>(options: T): T {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as T
}
