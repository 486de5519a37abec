// SdpSession (RFC 3264 §8): re-offers, hold and resume both ways, o= versions, an INVITE without
// an offer (RFC 3261 §14.2), failed exchanges leaving the session as it was, and what changed.
import t from 'tap'
import { type SdpSessionOptions, SdpSession, type SessionDescription, serializeSdp } from '../../../sip/sdp/index.js'
import { ASTERISK_OFFER, RFC3264_OFFER, RFC4317_HOLD_OFFER } from './fixtures.js'
import { parsed, peer } from './helpers.js'

const OPTIONS: SdpSessionOptions = { address: '198.51.100.7', port: 40000, sessionId: 9000, version: 5 }
const AUDIO = ['m=audio 5000 RTP/AVP 0 101', 'a=rtpmap:0 PCMU/8000', 'a=rtpmap:101 telephone-event/8000']

function answer(session: SdpSession, offer: SessionDescription) {
  const result = session.answerOffer(offer)
  if (!result.ok) throw new Error(`expected an answer: ${result.error.code}`)
  return result
}

const versionOf = (sdp: SessionDescription) => sdp.origin.sessionVersion
const directionOf = (sdp: SessionDescription) => sdp.media[0]!.attributes.at(-1)!.name

t.test('a remote hold and resume (a=sendonly, then sendrecv): answered recvonly, then sendrecv; our version one more each time', async (t) => {
  const session = new SdpSession(OPTIONS)
  t.equal(session.state, 'idle')
  const first = answer(session, peer(AUDIO, { version: 1 }))
  t.same([session.state, versionOf(first.answer), directionOf(first.answer)], ['stable', '5', 'sendrecv'])
  t.same(first.changes, { initial: true, remoteTransport: true, codec: true, direction: true, remoteHold: undefined, remoteVersion: 'initial' })

  const held = answer(session, peer([...AUDIO, 'a=sendonly'], { version: 2 }))
  t.same([versionOf(held.answer), directionOf(held.answer), held.negotiated.onHold], ['6', 'recvonly', true])
  t.same(held.changes, { initial: false, remoteTransport: false, codec: false, direction: true, remoteHold: 'held', remoteVersion: 'incremented' })

  const refresh = answer(session, peer([...AUDIO, 'a=sendonly'], { version: 2 }))
  t.equal(serializeSdp(refresh.answer), serializeSdp(held.answer), 'an unchanged re-offer is answered with the same description, same version')
  t.same(refresh.changes, { initial: false, remoteTransport: false, codec: false, direction: false, remoteHold: undefined, remoteVersion: 'unchanged' })

  const resumed = answer(session, peer(AUDIO, { version: 3 }))
  t.same([versionOf(resumed.answer), directionOf(resumed.answer), resumed.changes.remoteHold], ['7', 'sendrecv', 'resumed'])
})

t.test('the legacy hold (c=0.0.0.0, RFC 3264 §8.4) MUST read as hold, and its end as resume', async (t) => {
  const session = new SdpSession(OPTIONS)
  answer(session, peer(AUDIO, { version: 1 }))
  const held = answer(session, peer([AUDIO[0]!, 'c=IN IP4 0.0.0.0', ...AUDIO.slice(1)], { version: 2 }))
  t.same([held.changes.remoteHold, held.negotiated.direction, held.changes.remoteTransport], ['held', 'recvonly', true])
  const back = answer(session, peer(AUDIO, { version: 3 }))
  t.same([back.changes.remoteHold, back.negotiated.direction, back.negotiated.remoteAddress], ['resumed', 'sendrecv', '203.0.113.9'])
})

t.test('a new remote port or codec MUST be reported (the RTP latch follows; the codec switches)', async (t) => {
  const session = new SdpSession(OPTIONS)
  answer(session, peer(AUDIO, { version: 1 }))
  const moved = answer(session, peer(['m=audio 5010 RTP/AVP 0 101', 'a=rtpmap:101 telephone-event/8000'], { version: 2 }))
  t.same([moved.changes.remoteTransport, moved.changes.codec, moved.negotiated.remotePort], [true, false, 5010])
  const pcma = answer(session, peer(['m=audio 5010 RTP/AVP 8'], { version: 3 }))
  t.same([pcma.changes.remoteTransport, pcma.changes.codec, pcma.negotiated.codec, pcma.negotiated.dtmfPayloadType], [false, true, 'PCMA', undefined])
  const jumped = answer(session, peer(['m=audio 5010 RTP/AVP 8'], { version: 9 }))
  t.equal(jumped.changes.remoteVersion, 'irregular', 'a version jump is read all the same, and reported')
})

t.test('our hold (RFC 3264 §8.4): the re-offer says sendonly, one version more; resume says sendrecv; an unchanged re-offer keeps its version', async (t) => {
  const session = new SdpSession(OPTIONS)
  const offer = session.createOffer()
  t.same([session.state, versionOf(offer), directionOf(offer)], ['offer_sent', '5', 'sendrecv'])
  const read = session.readAnswer(peer(AUDIO))
  t.same(read.ok && [session.state, read.changes.initial], ['stable', true])

  session.hold()
  const hold = session.createOffer()
  t.same([versionOf(hold), directionOf(hold), session.onHoldLocally], ['6', 'sendonly', true])
  const held = session.readAnswer(peer([...AUDIO, 'a=recvonly'], { version: 2 }))
  t.same(held.ok && [held.negotiated.direction, held.negotiated.onHold, held.changes.direction], ['sendonly', false, true])

  const again = session.createOffer()
  t.same([versionOf(again), serializeSdp(again)], ['6', serializeSdp(hold)], 'nothing changed: same version (§8)')
  session.readAnswer(peer([...AUDIO, 'a=recvonly'], { version: 2 }))

  session.resume()
  const resume = session.createOffer()
  t.same([versionOf(resume), directionOf(resume)], ['7', 'sendrecv'])
  const back = session.readAnswer(peer(AUDIO, { version: 3 }))
  t.same(back.ok && back.negotiated.direction, 'sendrecv')
})

t.test('our hold while answering a re-offer MUST answer sendonly (and inactive to a peer that holds us too)', async (t) => {
  const session = new SdpSession(OPTIONS)
  answer(session, parsed(RFC4317_HOLD_OFFER))
  session.hold()
  const answered = answer(session, parsed(RFC4317_HOLD_OFFER.replace('2890844526 IN', '2890844527 IN')))
  t.equal(directionOf(answered.answer), 'sendonly')
  const both = answer(session, peer([...AUDIO, 'a=sendonly']))
  t.equal(directionOf(both.answer), 'inactive')
})

t.test('a re-INVITE without an offer (RFC 3261 §14.2): we offer in the 2xx, keeping every m= line, the codec first and the DTMF number', async (t) => {
  const session = new SdpSession(OPTIONS)
  answer(session, parsed(ASTERISK_OFFER))
  const offer = session.createOffer()
  t.same(offer.media[0]!.formats, ['0', '8', '110'], 'the negotiated codec first, telephone-event on the number agreed (§8.3.2: a mapping does not change)')
  t.equal(versionOf(offer), '6', 'an offer differs from our answer: one version more')
  const ack = session.readAnswer(parsed(ASTERISK_OFFER.replace('m=audio 12050', 'm=audio 12060')))
  t.same(ack.ok && [ack.negotiated.remotePort, ack.changes.remoteTransport, ack.changes.remoteVersion], [12060, true, 'unchanged'])

  const three = new SdpSession(OPTIONS)
  answer(three, parsed(RFC3264_OFFER))
  const reoffer = three.createOffer()
  t.same(
    reoffer.media.map((m) => `${m.type} ${m.port}`),
    ['audio 40000', 'video 0', 'video 0'],
    'the number of m= lines never decreases (§8)',
  )
})

t.test('a failed exchange MUST leave the session as it was (RFC 3261 §14.1-14.2)', async (t) => {
  const session = new SdpSession(OPTIONS)
  const first = answer(session, peer(AUDIO, { version: 1 }))
  const refused = session.answerOffer(peer(['m=audio 5000 RTP/AVP 9'], { version: 2 }))
  t.same(!refused.ok && [refused.error.code, refused.error.status], ['no_common_codec', 488])
  t.same([session.state, session.negotiated, session.localDescription], ['stable', first.negotiated, first.answer])

  const empty = session.answerOffer(peer([], { version: 2 }))
  t.same(!empty.ok && empty.error.code, 'fewer_media', 'a re-offer without any m= line')
  const two = new SdpSession(OPTIONS)
  answer(two, parsed(RFC3264_OFFER))
  const shrunk = two.answerOffer(peer(AUDIO))
  t.same(!shrunk.ok && shrunk.error.code, 'fewer_media', 'a re-offer with fewer m= lines (§8)')

  session.createOffer()
  session.cancelOffer()
  t.same([session.state, session.negotiated], ['stable', first.negotiated], 'a non-2xx to our re-INVITE')
  const bad = session.createOffer()
  const wrong = session.readAnswer(peer(['m=audio 0 RTP/AVP 0']))
  t.same(!wrong.ok && [wrong.error.code, session.state, session.negotiated], ['rejected', 'stable', first.negotiated])
  t.equal(versionOf(session.createOffer()), versionOf(bad), 'the same offer again keeps the version it was sent with')

  const fresh = new SdpSession(OPTIONS)
  fresh.createOffer()
  const none = fresh.readAnswer(peer(['m=audio 5000 RTP/AVP 9']))
  t.same(!none.ok && [none.error.code, fresh.state], ['no_common_codec', 'idle'])
})

t.test('misuse MUST throw: an answer with no offer out, an offer while ours is pending (glare, 491), bad options', async (t) => {
  const session = new SdpSession(OPTIONS)
  t.throws(() => session.readAnswer(peer(AUDIO)), /no offer awaits/)
  t.throws(() => session.cancelOffer(), /no offer to cancel/)
  session.createOffer()
  t.throws(() => session.answerOffer(peer(AUDIO)), RangeError)
  t.throws(() => session.createOffer(), /offer_sent -> offer_sent/)
  t.throws(() => new SdpSession({ ...OPTIONS, address: 'pbx.example.com' }), RangeError)
})
