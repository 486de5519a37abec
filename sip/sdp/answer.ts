import { hasAttribute } from './attributes.js'
import { DTMF_EVENTS, eventsOf } from './codecs.js'
import { type AudioLine, audioMedia, describeSession, localOrigin, refusedMedia } from './describe.js'
import { intersectDirections, reverseDirection } from './direction.js'
import type { SessionDescription } from './model.js'
import { choosePtime, commonCodecs, type NegotiatedMedia, remoteStream, telephoneEventFormat } from './negotiated.js'
import type { OfferOptions } from './offer.js'
import { type ResolvedAudio, resolveAudio } from './options.js'

/** Why an offer cannot be answered. Each means: answer 488 Not Acceptable Here (RFC 3261 §21.4.26). */
export type AnswerErrorCode = 'no_audio' | 'unsupported_transport' | 'unusable_connection' | 'no_common_codec' | 'fewer_media'

export interface AnswerError {
  readonly code: AnswerErrorCode
  readonly message: string
  readonly status: 488
}

export type AnswerOptions = OfferOptions

export type AnswerResult =
  | { readonly ok: true; readonly answer: SessionDescription; readonly negotiated: NegotiatedMedia }
  | { readonly ok: false; readonly error: AnswerError }

const MESSAGES: Readonly<Record<AnswerErrorCode, string>> = {
  no_audio: 'The offer has no active audio stream',
  unsupported_transport: 'No audio stream over RTP/AVP (secure or other profiles are not supported)',
  unusable_connection: 'The audio stream has no usable IN IP4/IP6 connection address',
  no_common_codec: 'No codec in common (PCMU/PCMA at 8000 Hz)',
  fewer_media: 'A re-offer has fewer m= lines than the session (RFC 3264 §8)',
}

// When several audio streams fail, the most specific reason is the one given.
const RANK: readonly AnswerErrorCode[] = ['no_audio', 'unsupported_transport', 'unusable_connection', 'no_common_codec']

export function answerError(code: AnswerErrorCode): { readonly ok: false; readonly error: AnswerError } {
  return { ok: false, error: { code, message: MESSAGES[code], status: 488 } }
}

/**
 * Answers an offer (RFC 3264 §6) as an audio-only G.711 endpoint: one answer m= line per offered
 * one, in order; the first audio stream over RTP/AVP with a codec in common is accepted, every
 * other stream refused with port 0. The codec is the offer's first we speak (or ours first, with
 * codecOrder 'ours'), on the offer's payload type; telephone-event/8000 is answered only when
 * offered, on the offer's payload type, with the events both sides know; the direction follows
 * §6.1's table; the offer's ptime is echoed when we can send it. Never throws on any offer
 * (a RangeError for invalid options only).
 */
export function answerOffer(offer: SessionDescription, options: AnswerOptions): AnswerResult {
  const audio = resolveAudio(options)
  let failure: AnswerErrorCode = 'no_audio'
  for (let index = 0; index < offer.media.length; index++) {
    const attempt = acceptStream(offer, index, audio)
    if (attempt === undefined) continue
    if (typeof attempt === 'string') {
      if (RANK.indexOf(attempt) > RANK.indexOf(failure)) failure = attempt
      continue
    }
    const media = offer.media.map((m, i) => (i === index ? audioMedia(audio, attempt.line) : refusedMedia(m)))
    // §6: the answer's t= line equals the offer's.
    const answer = describeSession(localOrigin(options, audio), audio, media, { ...options, timings: offer.timings })
    return { ok: true, answer, negotiated: attempt.negotiated }
  }
  return answerError(failure)
}

/** Undefined for a stream that is not ours to take (not audio, or port 0); a code when it fails. */
function acceptStream(
  offer: SessionDescription,
  index: number,
  audio: ResolvedAudio,
): { line: AudioLine; negotiated: NegotiatedMedia } | AnswerErrorCode | undefined {
  const media = offer.media[index]!
  if (media.type.toLowerCase() !== 'audio' || media.port === 0) return undefined
  if (media.proto.toUpperCase() !== 'RTP/AVP') return 'unsupported_transport'
  const rtcpMux = audio.rtcpMux && hasAttribute(media.attributes, 'rtcp-mux')
  const remote = remoteStream(offer, media, rtcpMux)
  if (!remote) return 'unusable_connection'
  const common = commonCodecs(media, audio.codecs)
  if (common.length === 0) return 'no_common_codec'
  const rank = (c: (typeof common)[number]) => audio.codecs.indexOf(c.codec)
  const chosen = audio.codecOrder === 'ours' ? common.reduce((best, c) => (rank(c) < rank(best) ? c : best)) : common[0]!

  const eventFormat = audio.dtmfPayloadType === null ? undefined : telephoneEventFormat(media)
  const events = eventFormat === undefined ? [] : [...eventsOf(media, eventFormat)].filter((e) => DTMF_EVENTS.includes(e))
  const dtmf = events.length > 0 ? { payloadType: Number(eventFormat), events } : undefined
  const ptimeMs = choosePtime(audio, offer, media)
  const direction = intersectDirections(reverseDirection(remote.direction), audio.direction)
  return {
    line: { codecs: [chosen], ...(dtmf ? { dtmf } : {}), ptimeMs, direction, rtcpMux },
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
      ...(dtmf ? { dtmfPayloadType: dtmf.payloadType } : {}),
      ptimeMs,
      direction,
      onHold: remote.onHold,
    },
  }
}
