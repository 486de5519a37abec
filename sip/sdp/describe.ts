import type { AudioCodec } from './codecs.js'
import { AUDIO_CODECS, formatEvents } from './codecs.js'
import type { SdpAttribute, SdpDirection, SdpMedia, SdpOrigin, SdpTiming, SessionDescription } from './model.js'
import { type OriginOptions, type ResolvedAudio, sessionNumber } from './options.js'

// Builders for the descriptions we send: one session-level c= (every m= line shares it), t=0 0
// (RFC 3264 §5) unless an answer copies the offer's, and explicit direction on every audio m=.

export function localOrigin(options: OriginOptions, audio: ResolvedAudio): SdpOrigin {
  return {
    username: options.username ?? '-',
    sessionId: sessionNumber(options.sessionId, 'sessionId'),
    sessionVersion: sessionNumber(options.version, 'version'),
    netType: 'IN',
    addrType: audio.addrType,
    address: audio.address,
  }
}

export function describeSession(
  origin: SdpOrigin,
  audio: ResolvedAudio,
  media: readonly SdpMedia[],
  options: { sessionName?: string; timings?: readonly SdpTiming[] },
): SessionDescription {
  return {
    origin,
    sessionName: options.sessionName ?? '-',
    emails: [],
    phones: [],
    connection: { netType: 'IN', addrType: audio.addrType, address: audio.address },
    bandwidths: [],
    timings: options.timings ?? [{ start: '0', stop: '0', repeats: [] }],
    attributes: [],
    media,
  }
}

export interface AudioLine {
  readonly codecs: ReadonlyArray<{ readonly codec: AudioCodec; readonly payloadType: number }>
  readonly dtmf?: { readonly payloadType: number; readonly events: Iterable<number> }
  readonly ptimeMs: number
  readonly maxPtimeMs?: number
  readonly direction: SdpDirection
  readonly rtcpMux: boolean
}

export function audioMedia(audio: ResolvedAudio, line: AudioLine): SdpMedia {
  const attributes: SdpAttribute[] = []
  for (const { codec, payloadType } of line.codecs) attributes.push({ name: 'rtpmap', value: `${payloadType} ${codec}/${AUDIO_CODECS[codec].clockRateHz}` })
  if (line.dtmf) {
    attributes.push({ name: 'rtpmap', value: `${line.dtmf.payloadType} telephone-event/8000` })
    attributes.push({ name: 'fmtp', value: `${line.dtmf.payloadType} ${formatEvents(line.dtmf.events)}` })
  }
  attributes.push({ name: 'ptime', value: `${line.ptimeMs}` })
  if (line.maxPtimeMs !== undefined) attributes.push({ name: 'maxptime', value: `${line.maxPtimeMs}` })
  if (audio.rtcpPort !== undefined && audio.rtcpPort !== audio.port + 1) attributes.push({ name: 'rtcp', value: `${audio.rtcpPort}` })
  if (line.rtcpMux) attributes.push({ name: 'rtcp-mux' })
  attributes.push({ name: line.direction })
  const formats = line.codecs.map((c) => `${c.payloadType}`)
  if (line.dtmf) formats.push(`${line.dtmf.payloadType}`)
  return { type: 'audio', port: audio.port, proto: 'RTP/AVP', formats, connections: [], bandwidths: [], attributes }
}

/** RFC 3264 §6: a refused stream keeps its type, transport and formats, with port 0 and nothing else. */
export function refusedMedia(offered: SdpMedia): SdpMedia {
  return { type: offered.type, port: 0, proto: offered.proto, formats: offered.formats, connections: [], bandwidths: [], attributes: [] }
}
