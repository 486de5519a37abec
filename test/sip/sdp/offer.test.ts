// createOffer (RFC 3264 §5): the offer an audio-only G.711 endpoint sends, written out literally.
import t from 'tap'
import { createOffer, DEFAULT_AUDIO, parseSdp, serializeSdp } from '../../../sip/sdp/index.js'
import { crlf } from './fixtures.js'

const BASE = { address: '192.0.2.10', port: 40000, sessionId: 3724394400n, version: 3724394400n }

t.test('the default offer MUST list PCMU, PCMA and telephone-event/8000 (0-16) with ptime 20, sendrecv', async (t) => {
  t.equal(
    serializeSdp(createOffer(BASE)),
    crlf(
      'v=0',
      'o=- 3724394400 3724394400 IN IP4 192.0.2.10',
      's=-',
      'c=IN IP4 192.0.2.10',
      't=0 0',
      'm=audio 40000 RTP/AVP 0 8 101',
      'a=rtpmap:0 PCMU/8000',
      'a=rtpmap:8 PCMA/8000',
      'a=rtpmap:101 telephone-event/8000',
      'a=fmtp:101 0-16',
      'a=ptime:20',
      'a=maxptime:40',
      'a=sendrecv',
    ),
  )
})

t.test('the options MUST shape the offer: codec order, DTMF payload type or none, direction, IPv6, RTCP', async (t) => {
  const text = serializeSdp(
    createOffer({
      ...BASE,
      address: '2001:db8::10',
      codecs: ['PCMA'],
      dtmfPayloadType: 96,
      direction: 'sendonly',
      ptimeMs: 30,
      ptimesMs: [20, 30],
      rtcpPort: 40005,
      rtcpMux: true,
      username: 'ozan',
      sessionName: 'call',
    }),
  )
  t.equal(
    text,
    crlf(
      'v=0',
      'o=ozan 3724394400 3724394400 IN IP6 2001:db8::10',
      's=call',
      'c=IN IP6 2001:db8::10',
      't=0 0',
      'm=audio 40000 RTP/AVP 8 96',
      'a=rtpmap:8 PCMA/8000',
      'a=rtpmap:96 telephone-event/8000',
      'a=fmtp:96 0-16',
      'a=ptime:30',
      'a=maxptime:30',
      'a=rtcp:40005',
      'a=rtcp-mux',
      'a=sendonly',
    ),
  )
  const noDtmf = createOffer({ ...BASE, dtmfPayloadType: null })
  t.same(noDtmf.media[0]!.formats, ['0', '8'], 'null: no telephone-event at all')
})

t.test('an offer MUST parse back to itself', async (t) => {
  const offer = createOffer(BASE)
  const result = parseSdp(serializeSdp(offer))
  t.ok(result.ok)
  if (result.ok) t.same(result.sdp, offer)
})

t.test('invalid options MUST be refused up front with a RangeError', async (t) => {
  t.throws(() => createOffer({ ...BASE, address: 'pbx.example.com' }), RangeError, 'a name needs DNS at the far end')
  t.throws(() => createOffer({ ...BASE, port: 0 }), RangeError)
  t.throws(() => createOffer({ ...BASE, port: 70000 }), RangeError)
  t.throws(() => createOffer({ ...BASE, codecs: [] }), RangeError)
  t.throws(() => createOffer({ ...BASE, codecs: ['PCMU', 'PCMU'] }), RangeError)
  t.throws(() => createOffer({ ...BASE, dtmfPayloadType: 8 }), RangeError, 'telephone-event needs a dynamic payload type')
  t.throws(() => createOffer({ ...BASE, ptimeMs: 25 }), RangeError, 'ptimeMs must be one the packetizer can do')
  t.throws(() => createOffer({ ...BASE, sessionId: -1 }), RangeError)
  t.throws(() => createOffer({ ...BASE, version: 2n ** 64n }), RangeError)
  t.same(DEFAULT_AUDIO.codecs, ['PCMU', 'PCMA'])
})
