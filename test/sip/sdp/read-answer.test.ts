// readAnswer (RFC 3264 §6-7, as the offerer): the answer MUST fit our offer, and what it settles is read.
import t from 'tap'
import { createOffer, readAnswer, type ReadAnswerErrorCode, type SdpDirection, type SessionDescription } from '../../../sip/sdp/index.js'
import { RFC3264_ANSWER, RFC3264_OFFER } from './fixtures.js'
import { parsed, peer, US } from './helpers.js'

const OFFER = createOffer(US)

function read(answerLines: string[], offer: SessionDescription = OFFER) {
  const result = readAnswer(offer, peer(answerLines))
  if (!result.ok) throw new Error(`expected a negotiation: ${result.error.code}`)
  return result.negotiated
}

function refused(answerLines: string[], offer: SessionDescription = OFFER): ReadAnswerErrorCode | 'read' {
  const result = readAnswer(offer, peer(answerLines))
  return result.ok ? 'read' : result.error.code
}

t.test("RFC 3264 §10.1: Bob's answer to Alice's offer settles PCMU towards host.example.com:49920", async (t) => {
  const result = readAnswer(parsed(RFC3264_OFFER), parsed(RFC3264_ANSWER))
  t.same(result.ok && result.negotiated, {
    mediaIndex: 0,
    remoteAddress: 'host.example.com',
    remoteAddressKind: 'fqdn',
    remotePort: 49920,
    rtcpAddress: 'host.example.com',
    rtcpPort: 49921,
    rtcpMux: false,
    payloadType: 0,
    codec: 'PCMU',
    clockRateHz: 8000,
    ptimeMs: 20,
    direction: 'sendrecv',
    onHold: false,
  })
})

t.test("the codec MUST be the answer's first we offered, sent on the answer's payload types (§5.1)", async (t) => {
  const pcma = read(['m=audio 5000 RTP/AVP 8 101', 'a=rtpmap:8 PCMA/8000', 'a=rtpmap:101 telephone-event/8000', 'a=fmtp:101 0-15'])
  t.same([pcma.codec, pcma.payloadType, pcma.dtmfPayloadType, pcma.remotePort], ['PCMA', 8, 101, 5000])
  const renumbered = read(['m=audio 5000 RTP/AVP 0 96', 'a=rtpmap:96 telephone-event/8000'])
  t.equal(renumbered.dtmfPayloadType, 96, 'telephone-event sent on the number the peer receives it on')
  t.equal(read(['m=audio 5000 RTP/AVP 0']).dtmfPayloadType, undefined, 'no telephone-event in the answer: no DTMF by RTP')
  const noDtmfOffer = createOffer({ ...US, dtmfPayloadType: null })
  t.equal(read(['m=audio 5000 RTP/AVP 0 101', 'a=rtpmap:101 telephone-event/8000'], noDtmfOffer).dtmfPayloadType, undefined, 'not offered: not used')
})

t.test('an answer that does not fit the offer MUST be a typed error', async (t) => {
  t.equal(refused(['m=audio 5000 RTP/AVP 0', 'm=video 0 RTP/AVP 31']), 'media_count_mismatch')
  t.equal(refused(['m=video 5000 RTP/AVP 31']), 'media_type_mismatch')
  t.equal(refused(['m=audio 0 RTP/AVP 0']), 'rejected')
  t.equal(refused(['m=audio 5000 RTP/SAVP 0']), 'unsupported_transport')
  t.equal(refused(['m=audio 5000 RTP/AVP 9']), 'no_common_codec', 'G722, which we never offered')
  t.equal(refused(['m=audio 5000 RTP/AVP 8'], createOffer({ ...US, codecs: ['PCMU'] })), 'no_common_codec', 'PCMA, which we did not offer')
  t.equal(refused(['m=audio 5000 RTP/AVP 0', 'c=ATM NSAP 47.0005']), 'unusable_connection')
  t.equal(refused(['m=video 5000 RTP/AVP 31'], peer(['m=video 6000 RTP/AVP 31'])), 'no_audio')
})

t.test('our direction MUST be what we offered narrowed by the answer', async (t) => {
  const direction = (offered: SdpDirection, answered: SdpDirection) => {
    const n = read(['m=audio 5000 RTP/AVP 0', `a=${answered}`], createOffer({ ...US, direction: offered }))
    return [n.direction, n.onHold]
  }
  t.same(direction('sendrecv', 'sendrecv'), ['sendrecv', false])
  t.same(direction('sendonly', 'recvonly'), ['sendonly', false], 'our hold, accepted')
  t.same(direction('sendrecv', 'sendonly'), ['recvonly', true], 'the peer holds us in its answer')
  t.same(direction('sendrecv', 'inactive'), ['inactive', true])
  t.same(direction('sendonly', 'sendrecv'), ['sendonly', false], 'an answer claiming more than §6.1 allows is narrowed')
  const legacy = read(['m=audio 5000 RTP/AVP 0', 'c=IN IP4 0.0.0.0'])
  t.same([legacy.direction, legacy.onHold], ['recvonly', true], 'c=0.0.0.0 in an answer: nothing is sent')
})

t.test('ptime and RTCP from the answer', async (t) => {
  t.equal(read(['m=audio 5000 RTP/AVP 0', 'a=ptime:30']).ptimeMs, 30)
  t.equal(read(['m=audio 5000 RTP/AVP 0', 'a=ptime:25']).ptimeMs, 20, 'one we cannot do: our offer ptime')
  t.equal(readAnswer(OFFER, peer(['m=audio 5000 RTP/AVP 0', 'a=ptime:60']), { ptimesMs: [20, 60] }).ok, true)
  t.equal(read(['m=audio 5000 RTP/AVP 0', 'a=rtcp-mux']).rtcpPort, 5001, 'mux needs both sides')
  const muxOffer = createOffer({ ...US, rtcpMux: true })
  t.same([read(['m=audio 5000 RTP/AVP 0', 'a=rtcp-mux'], muxOffer).rtcpPort, read(['m=audio 5000 RTP/AVP 0', 'a=rtcp-mux'], muxOffer).rtcpMux], [5000, true])
})
