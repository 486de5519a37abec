import { AUDIO_CODECS, DTMF_EVENTS } from './codecs.js'
import { type AudioLine, audioMedia, describeSession, localOrigin } from './describe.js'
import type { SessionDescription } from './model.js'
import { type AudioOptions, type OriginOptions, type ResolvedAudio, resolveAudio } from './options.js'

export interface OfferOptions extends AudioOptions, OriginOptions {}

/**
 * An offer for one audio stream (RFC 3264 §5): our codecs in preference order on their static
 * payload types, telephone-event/8000 with events 0-16 on `dtmfPayloadType`, a=ptime and
 * a=maxptime, and the direction written out. Throws a RangeError for invalid options only.
 */
export function createOffer(options: OfferOptions): SessionDescription {
  const audio = resolveAudio(options)
  return describeSession(localOrigin(options, audio), audio, [audioMedia(audio, offerLine(audio))], options)
}

export function offerLine(audio: ResolvedAudio, dtmfPayloadType = audio.dtmfPayloadType): AudioLine {
  return {
    codecs: audio.codecs.map((codec) => ({ codec, payloadType: AUDIO_CODECS[codec].payloadType })),
    ...(dtmfPayloadType === null ? {} : { dtmf: { payloadType: dtmfPayloadType, events: DTMF_EVENTS } }),
    ptimeMs: audio.ptimeMs,
    maxPtimeMs: Math.max(...audio.ptimesMs),
    direction: audio.direction,
    rtcpMux: audio.rtcpMux,
  }
}
