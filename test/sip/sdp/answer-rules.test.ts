// answerOffer's rules one by one: 488 reasons, §6.1's direction table, telephone-event, ptime, RTCP.
import t from 'tap'
import { type AnswerErrorCode, answerOffer, type NegotiatedMedia, type SdpDirection } from '../../../sip/sdp/index.js'
import { SAVPF_OFFER } from './fixtures.js'
import { parsed, peer, US } from './helpers.js'

function answered(lines: string[], options = {}, head: string[] = []): NegotiatedMedia & { attributes: string[]; formats: readonly string[] } {
  const result = answerOffer(peer(lines, { head }), { ...US, ...options })
  if (!result.ok) throw new Error(`expected an answer: ${result.error.code}`)
  const media = result.answer.media[result.negotiated.mediaIndex]!
  return { ...result.negotiated, formats: media.formats, attributes: media.attributes.map((a) => (a.value === undefined ? a.name : `${a.name}:${a.value}`)) }
}

function refusal(lines: string[]): AnswerErrorCode | 'answered' {
  const result = answerOffer(peer(lines), US)
  if (result.ok) return 'answered'
  t.equal(result.error.status, 488, 'every refusal is answered 488 Not Acceptable Here')
  return result.error.code
}

t.test('an offer that cannot be answered MUST yield a typed failure meaning 488', async (t) => {
  t.equal(refusal(['m=video 5000 RTP/AVP 31']), 'no_audio', 'no audio stream')
  t.equal(refusal(['m=audio 0 RTP/AVP 0']), 'no_audio', 'the only audio stream already refused (port 0)')
  t.equal(refusal(['m=audio 5000 RTP/SAVP 0']), 'unsupported_transport', 'SRTP only')
  t.equal(refusal(['m=audio 5000 RTP/AVP 9 107', 'a=rtpmap:107 opus/48000/2']), 'no_common_codec', 'G722 and Opus only')
  t.equal(refusal(['m=audio 5000 RTP/AVP 96', 'a=rtpmap:96 PCMU/16000']), 'no_common_codec', 'PCMU at another clock rate is not ours')
  t.equal(refusal(['m=audio 5000 RTP/AVP 96', 'a=rtpmap:96 PCMU/8000/2']), 'no_common_codec', 'nor stereo PCMU')
  t.equal(refusal(['m=audio 5000 RTP/AVP 101', 'a=rtpmap:101 telephone-event/8000']), 'no_common_codec', 'telephone-event alone is not a codec')
  t.equal(refusal(['m=audio 5000 RTP/AVP 0', 'c=ATM NSAP 47.0005']), 'unusable_connection', 'a network type other than IN')
  t.equal(refusal(['m=audio 5000 RTP/SAVP 0', 'm=audio 5002 RTP/AVP 9']), 'no_common_codec', 'the most specific reason wins')
  const savpf = answerOffer(parsed(SAVPF_OFFER), US)
  t.same(!savpf.ok && savpf.error, { code: 'unsupported_transport', message: savpf.ok ? '' : savpf.error.message, status: 488 })
})

t.test('direction MUST follow §6.1: sendonly -> recvonly, recvonly -> sendonly, inactive -> inactive, sendrecv -> sendrecv', async (t) => {
  const table: Array<[SdpDirection, SdpDirection, boolean]> = [
    ['sendrecv', 'sendrecv', false],
    ['sendonly', 'recvonly', true],
    ['recvonly', 'sendonly', false],
    ['inactive', 'inactive', true],
  ]
  for (const [offered, expected, onHold] of table) {
    const result = answered(['m=audio 5000 RTP/AVP 0', `a=${offered}`])
    t.same([result.direction, result.onHold, result.attributes.at(-1)], [expected, onHold, expected], `offer ${offered}`)
  }
  t.equal(answered(['m=audio 5000 RTP/AVP 0'], {}, ['a=sendonly']).direction, 'recvonly', 'a session-level direction counts')
  t.equal(answered(['m=audio 5000 RTP/AVP 0'], { direction: 'recvonly' }).direction, 'recvonly', 'we never do more than our direction allows')
  t.equal(answered(['m=audio 5000 RTP/AVP 0', 'a=recvonly'], { direction: 'recvonly' }).direction, 'inactive')
})

t.test('c=0.0.0.0 (RFC 2543 hold) MUST mean we send nothing to the peer (§8.4): recvonly, on hold', async (t) => {
  const result = answered(['m=audio 5000 RTP/AVP 0', 'c=IN IP4 0.0.0.0'])
  t.same([result.direction, result.onHold, result.remoteAddress], ['recvonly', true, '0.0.0.0'])
  t.same(answered(['m=audio 5000 RTP/AVP 0', 'c=IN IP4 0.0.0.0', 'a=sendonly']).direction, 'recvonly')
  t.same(answered(['m=audio 5000 RTP/AVP 0', 'c=IN IP4 0.0.0.0', 'a=recvonly']).direction, 'inactive')
})

t.test('telephone-event MUST be answered only when offered, at 8000 Hz, on the offer payload type, with the events both know', async (t) => {
  t.same(answered(['m=audio 5000 RTP/AVP 0']).formats, ['0'], 'not offered: not answered')
  t.same(answered(['m=audio 5000 RTP/AVP 0 101', 'a=rtpmap:101 telephone-event/48000']).formats, ['0'], 'only at 48000: not ours')
  t.same(answered(['m=audio 5000 RTP/AVP 0 101', 'a=rtpmap:101 telephone-event/8000'], { dtmfPayloadType: null }).formats, ['0'], 'DTMF turned off')
  const events = (fmtp: string) =>
    answered(['m=audio 5000 RTP/AVP 0 97', 'a=rtpmap:97 telephone-event/8000', `a=fmtp:97 ${fmtp}`]).attributes.find((a) => a.startsWith('fmtp'))
  t.equal(events('0-15'), 'fmtp:97 0-15')
  t.equal(events('0-16'), 'fmtp:97 0-16')
  t.equal(events('0-11,15,66'), 'fmtp:97 0-11,15', 'events we do not know are left out')
  t.equal(events('0-255'), 'fmtp:97 0-16')
  t.equal(events('nonsense'), 'fmtp:97 0-15', 'an unreadable list is taken as the default 0-15')
  const onlyUnknown = answered(['m=audio 5000 RTP/AVP 0 97', 'a=rtpmap:97 telephone-event/8000', 'a=fmtp:97 66'])
  t.same([onlyUnknown.formats, onlyUnknown.dtmfPayloadType], [['0'], undefined], 'no event in common: no telephone-event')
})

t.test('ptime MUST be echoed when we can send it, else ours, within the peer a=maxptime', async (t) => {
  const ptime = (lines: string[], options = {}) => {
    const result = answered(['m=audio 5000 RTP/AVP 0', ...lines], options)
    return [result.ptimeMs, result.attributes.find((a) => a.startsWith('ptime'))]
  }
  t.same(ptime([]), [20, 'ptime:20'])
  t.same(ptime(['a=ptime:30']), [30, 'ptime:30'])
  t.same(ptime(['a=ptime:25']), [20, 'ptime:20'], 'a packet time our packetizer cannot do')
  t.same(ptime(['a=ptime:60']), [20, 'ptime:20'])
  t.same(ptime(['a=ptime:60'], { ptimesMs: [20, 60] }), [60, 'ptime:60'])
  t.same(ptime(['a=maxptime:10']), [10, 'ptime:10'])
  t.same(ptime(['a=ptime:40', 'a=maxptime:30']), [20, 'ptime:20'], 'asked over its own maximum: ours')
  t.same(ptime(['a=maxptime:15']), [10, 'ptime:10'], 'ours over the maximum: the largest we can do within it')
  t.same(ptime(['a=maxptime:5']), [10, 'ptime:10'], 'nothing within it: our smallest')
})

t.test('RTCP: port + 1 by default, a=rtcp when given, the RTP port when both sides mux (RFC 5761)', async (t) => {
  t.same(pick(answered(['m=audio 5000 RTP/AVP 0'])), [5001, '203.0.113.9', false])
  t.same(pick(answered(['m=audio 5000 RTP/AVP 0', 'a=rtcp:6000 IN IP4 203.0.113.10'])), [6000, '203.0.113.10', false])
  t.same(pick(answered(['m=audio 5000 RTP/AVP 0', 'a=rtcp-mux'])), [5001, '203.0.113.9', false], 'we did not enable mux')
  const muxed = answered(['m=audio 5000 RTP/AVP 0', 'a=rtcp-mux'], { rtcpMux: true })
  t.same(pick(muxed), [5000, '203.0.113.9', true])
  t.ok(muxed.attributes.includes('rtcp-mux'))
  t.notOk(answered(['m=audio 5000 RTP/AVP 0'], { rtcpMux: true }).attributes.includes('rtcp-mux'), 'not offered: not answered')
})

function pick(n: NegotiatedMedia): [number, string, boolean] {
  return [n.rtcpPort, n.rtcpAddress, n.rtcpMux]
}
