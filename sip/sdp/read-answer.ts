import { directionOf, hasAttribute, millisecondsOf } from './attributes.js'
import { intersectDirections, reverseDirection } from './direction.js'
import type { SessionDescription } from './model.js'
import { choosePtime, commonCodecs, type NegotiatedMedia, remoteStream, telephoneEventFormat } from './negotiated.js'
import { type AudioOptions, DEFAULT_AUDIO } from './options.js'

/** Why an answer does not fit our offer. The call cannot go on: ACK the 2xx, then BYE (RFC 3261 §13.2.2.4). */
export type ReadAnswerErrorCode =
  | 'media_count_mismatch'
  | 'media_type_mismatch'
  | 'no_audio'
  | 'rejected'
  | 'unsupported_transport'
  | 'unusable_connection'
  | 'no_common_codec'

export interface ReadAnswerError {
  readonly code: ReadAnswerErrorCode
  readonly message: string
}

export type ReadAnswerResult = { readonly ok: true; readonly negotiated: NegotiatedMedia } | { readonly ok: false; readonly error: ReadAnswerError }

const MESSAGES: Readonly<Record<ReadAnswerErrorCode, string>> = {
  media_count_mismatch: 'The answer has another number of m= lines than the offer (RFC 3264 §6)',
  media_type_mismatch: 'An answer m= line has another media type than the offer',
  no_audio: 'The offer has no audio stream of ours',
  rejected: 'The answer refused the audio stream (port 0)',
  unsupported_transport: 'The answer changed the audio transport',
  unusable_connection: 'The answer has no usable IN IP4/IP6 connection address',
  no_common_codec: 'The answer has no codec we offered',
}

const fail = (code: ReadAnswerErrorCode): ReadAnswerResult => ({ ok: false, error: { code, message: MESSAGES[code] } })

/**
 * Reads the answer to our offer (a UAC's, or a UAS's after an offer in a 2xx, RFC 3264 §6-7).
 * The audio stream is the offer's first audio m= line over RTP/AVP with G.711; the codec sent is
 * the answer's first we offered, on the answer's payload type (§5.1: numbers in a description are
 * those its writer receives). `options` gives the packet times we can send (ptimeMs defaults to the
 * offer's a=ptime). Never throws.
 */
export function readAnswer(offer: SessionDescription, answer: SessionDescription, options: Pick<AudioOptions, 'ptimeMs' | 'ptimesMs'> = {}): ReadAnswerResult {
  if (answer.media.length !== offer.media.length) return fail('media_count_mismatch')
  if (answer.media.some((m, i) => m.type.toLowerCase() !== offer.media[i]!.type.toLowerCase())) return fail('media_type_mismatch')
  const index = offer.media.findIndex(
    (m) => m.type.toLowerCase() === 'audio' && m.port !== 0 && m.proto.toUpperCase() === 'RTP/AVP' && commonCodecs(m, ['PCMU', 'PCMA']).length > 0,
  )
  if (index < 0) return fail('no_audio')
  const offered = offer.media[index]!
  const media = answer.media[index]!
  if (media.port === 0) return fail('rejected')
  if (media.proto.toUpperCase() !== 'RTP/AVP') return fail('unsupported_transport')
  const chosen = commonCodecs(
    media,
    commonCodecs(offered, ['PCMU', 'PCMA']).map((c) => c.codec),
  )[0]
  if (!chosen) return fail('no_common_codec')
  const rtcpMux = hasAttribute(offered.attributes, 'rtcp-mux') && hasAttribute(media.attributes, 'rtcp-mux')
  const remote = remoteStream(answer, media, rtcpMux)
  if (!remote) return fail('unusable_connection')

  const eventFormat = telephoneEventFormat(offered) === undefined ? undefined : telephoneEventFormat(media)
  const ptimeMs = options.ptimeMs ?? millisecondsOf(offer, offered, 'ptime') ?? DEFAULT_AUDIO.ptimeMs
  const ptimesMs = options.ptimesMs ?? [...new Set([...DEFAULT_AUDIO.ptimesMs, ptimeMs])]
  return {
    ok: true,
    negotiated: {
      mediaIndex: index,
      remoteAddress: remote.address,
      remoteAddressKind: remote.addressKind,
      remotePort: remote.port,
      rtcpAddress: remote.rtcpAddress,
      rtcpPort: remote.rtcpPort,
      rtcpMux,
      payloadType: chosen.payloadType,
      codec: chosen.codec,
      clockRateHz: 8000,
      ...(eventFormat === undefined ? {} : { dtmfPayloadType: Number(eventFormat) }),
      ptimeMs: choosePtime({ ptimeMs, ptimesMs }, answer, media),
      direction: intersectDirections(directionOf(offer, offered), reverseDirection(remote.direction)),
      onHold: remote.onHold,
    },
  }
}
