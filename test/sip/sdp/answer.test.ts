// answerOffer (RFC 3264 §6) for an audio-only PCMU/PCMA endpoint: RFC 3264's and RFC 4317's
// offers and Asterisk/Linphone-style ones, with the answers written out literally.
import t from 'tap'
import { answerOffer, serializeSdp } from '../../../sip/sdp/index.js'
import {
  ASTERISK_OFFER,
  crlf,
  LINPHONE_OFFER,
  RFC3264_OFFER,
  RFC3264_SECOND_OFFER,
  RFC4317_AUDIO_ONLY_OFFER,
  RFC4317_AUDIO_VIDEO_OFFER,
  RFC4317_TWO_AUDIO_OFFER,
} from './fixtures.js'
import { parsed, US } from './helpers.js'

const HEAD = ['v=0', 'o=- 42 1 IN IP4 198.51.100.7', 's=-', 'c=IN IP4 198.51.100.7', 't=0 0']

function answerText(offer: string, options = {}): string {
  const result = answerOffer(parsed(offer), { ...US, ...options })
  if (!result.ok) throw new Error(`expected an answer: ${result.error.code}`)
  return serializeSdp(result.answer)
}

t.test('RFC 3264 §10.1: the answer MUST have one m= line per offered one, in order, refusing video with port 0', async (t) => {
  t.equal(
    answerText(RFC3264_OFFER),
    crlf(...HEAD, 'm=audio 40000 RTP/AVP 0', 'a=rtpmap:0 PCMU/8000', 'a=ptime:20', 'a=sendrecv', 'm=video 0 RTP/AVP 31', 'm=video 0 RTP/AVP 32'),
  )
  const result = answerOffer(parsed(RFC3264_OFFER), US)
  t.same(result.ok && result.negotiated, {
    mediaIndex: 0,
    remoteAddress: 'host.anywhere.com',
    remoteAddressKind: 'fqdn',
    remotePort: 49170,
    rtcpAddress: 'host.anywhere.com',
    rtcpPort: 49171,
    rtcpMux: false,
    payloadType: 0,
    codec: 'PCMU',
    clockRateHz: 8000,
    ptimeMs: 20,
    direction: 'sendrecv',
    onHold: false,
  })
})

t.test("RFC 3264 §10.1's second offer: a second audio stream MUST be refused with port 0, the first follows the new port", async (t) => {
  t.equal(
    answerText(RFC3264_SECOND_OFFER),
    crlf(
      ...HEAD,
      'm=audio 40000 RTP/AVP 0',
      'a=rtpmap:0 PCMU/8000',
      'a=ptime:20',
      'a=sendrecv',
      'm=video 0 RTP/AVP 31',
      'm=video 0 RTP/AVP 32',
      'm=audio 0 RTP/AVP 110',
    ),
  )
  const result = answerOffer(parsed(RFC3264_SECOND_OFFER), US)
  t.same(result.ok && [result.negotiated.remoteAddress, result.negotiated.remotePort], ['host.example.com', 65422])
})

t.test('RFC 4317 §2.1: among PCMU, PCMA and iLBC the answerer SHOULD respect the offer order (PCMU); "ours" picks our first', async (t) => {
  t.equal(
    answerText(RFC4317_AUDIO_VIDEO_OFFER),
    crlf(...HEAD, 'm=audio 40000 RTP/AVP 0', 'a=rtpmap:0 PCMU/8000', 'a=ptime:20', 'a=sendrecv', 'm=video 0 RTP/AVP 31 32'),
  )
  const ours = answerOffer(parsed(RFC4317_AUDIO_VIDEO_OFFER), { ...US, codecs: ['PCMA', 'PCMU'], codecOrder: 'ours' })
  t.same(ours.ok && [ours.negotiated.codec, ours.negotiated.payloadType], ['PCMA', 8])
  const offerOrder = answerOffer(parsed(RFC4317_AUDIO_VIDEO_OFFER), { ...US, codecs: ['PCMA', 'PCMU'] })
  t.same(offerOrder.ok && offerOrder.negotiated.codec, 'PCMU', 'our preference alone does not override the offer order')
})

t.test('RFC 4317 §2.4: telephone-event in a stream of its own is a second audio stream, refused; the first is answered', async (t) => {
  t.equal(
    answerText(RFC4317_TWO_AUDIO_OFFER),
    crlf(...HEAD, 'm=audio 40000 RTP/AVP 0', 'a=rtpmap:0 PCMU/8000', 'a=ptime:20', 'a=sendrecv', 'm=audio 0 RTP/AVP 98'),
  )
})

t.test('RFC 4317 §2.6: of two audio streams the first we can take (PCMU) is accepted, the iLBC one refused', async (t) => {
  t.equal(
    answerText(RFC4317_AUDIO_ONLY_OFFER),
    crlf(...HEAD, 'm=audio 40000 RTP/AVP 0', 'a=rtpmap:0 PCMU/8000', 'a=ptime:20', 'a=sendrecv', 'm=audio 0 RTP/AVP 97 101'),
  )
  const onlySecond = answerOffer(parsed(RFC4317_AUDIO_ONLY_OFFER.replace('m=audio 49170 RTP/AVP 0', 'm=audio 49170 RTP/AVP 97')), US)
  t.equal(onlySecond.ok ? 'answered' : onlySecond.error.code, 'no_common_codec', 'iLBC-only streams leave nothing to take')
})

t.test('an Asterisk-style offer (opus, G722, PCMU, PCMA, telephone-event at 48000 and 8000): PCMU with telephone-event/8000', async (t) => {
  t.equal(
    answerText(ASTERISK_OFFER, { version: 2 }),
    crlf(
      'v=0',
      'o=- 42 2 IN IP4 198.51.100.7',
      's=-',
      'c=IN IP4 198.51.100.7',
      't=0 0',
      'm=audio 40000 RTP/AVP 0 110',
      'a=rtpmap:0 PCMU/8000',
      'a=rtpmap:110 telephone-event/8000',
      'a=fmtp:110 0-16',
      'a=ptime:20',
      'a=sendrecv',
    ),
  )
  const result = answerOffer(parsed(ASTERISK_OFFER), US)
  t.same(result.ok && [result.negotiated.remoteAddress, result.negotiated.remotePort, result.negotiated.dtmfPayloadType], ['203.0.113.5', 12050, 110])
})

t.test('a Linphone-style offer: PCMA (offered first), telephone-event/8000 on 100 with the default events, RTCP from a=rtcp', async (t) => {
  t.equal(
    answerText(LINPHONE_OFFER),
    crlf(...HEAD, 'm=audio 40000 RTP/AVP 8 100', 'a=rtpmap:8 PCMA/8000', 'a=rtpmap:100 telephone-event/8000', 'a=fmtp:100 0-15', 'a=ptime:20', 'a=sendrecv'),
  )
  const result = answerOffer(parsed(LINPHONE_OFFER), US)
  t.same(result.ok && [result.negotiated.codec, result.negotiated.payloadType, result.negotiated.rtcpPort], ['PCMA', 8, 7079])
})

t.test('the offer t= line MUST be copied to the answer (§6)', async (t) => {
  const offer = RFC3264_OFFER.replace('t=0 0', 't=3034423619 3042462419')
  const result = answerOffer(parsed(offer), US)
  t.same(result.ok && result.answer.timings, [{ start: '3034423619', stop: '3042462419', repeats: [] }])
})

t.test('a dynamic payload type mapped to PCMU MUST be answered on the offer number', async (t) => {
  const offer = crlf('v=0', 'o=- 1 1 IN IP6 2001:db8::9', 's=-', 'c=IN IP6 2001:db8::9', 't=0 0', 'm=audio 5004 RTP/AVP 96', 'a=rtpmap:96 pcmu/8000')
  const result = answerOffer(parsed(offer), US)
  t.same(result.ok && [result.negotiated.payloadType, result.negotiated.codec, result.negotiated.remoteAddressKind], [96, 'PCMU', 'ipv6'])
  t.same(result.ok && result.answer.media[0]!.attributes[0], { name: 'rtpmap', value: '96 PCMU/8000' })
})
