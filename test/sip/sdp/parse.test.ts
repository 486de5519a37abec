// Parsing (RFC 8866 §5): every line type in its place, session- and media-level c= and a=, the
// attributes an audio call reads, and everything else kept verbatim.
import t from 'tap'
import { classifyAddress, directionOf, fmtpOf, millisecondsOf, parseSdp, rtcpOf, rtpmapOf, type SessionDescription } from '../../../sip/sdp/index.js'
import { ASTERISK_OFFER, crlf, LINPHONE_OFFER, RFC3264_ANSWER, RFC8866_EXAMPLE, SAVPF_OFFER } from './fixtures.js'

function parsed(text: string | Buffer): SessionDescription {
  const result = parseSdp(text)
  if (!result.ok) throw new Error(`expected to parse: ${result.error.code} at line ${result.error.line}`)
  return result.sdp
}

t.test("RFC 8866 §5's example MUST parse with the values it writes", async (t) => {
  const sdp = parsed(RFC8866_EXAMPLE)
  t.same(sdp.origin, { username: 'jdoe', sessionId: '3724394400', sessionVersion: '3724394405', netType: 'IN', addrType: 'IP4', address: '198.51.100.1' })
  t.equal(sdp.sessionName, 'Call to John Smith')
  t.equal(sdp.information, 'SDP Offer #1')
  t.equal(sdp.uri, 'http://www.jdoe.example.com/home.html')
  t.same(sdp.emails, ['Jane Doe <jane@jdoe.example.com>'])
  t.same(sdp.phones, ['+1 617 555-6011'])
  t.same(sdp.connection, { netType: 'IN', addrType: 'IP4', address: '198.51.100.1' })
  t.same(sdp.timings, [{ start: '0', stop: '0', repeats: [] }])
  t.same(
    sdp.media.map((m) => [m.type, m.port, m.proto, m.formats]),
    [
      ['audio', 49170, 'RTP/AVP', ['0']],
      ['audio', 49180, 'RTP/AVP', ['0']],
      ['video', 51372, 'RTP/AVP', ['99']],
    ],
  )
  t.same(sdp.media[2]!.connections, [{ netType: 'IN', addrType: 'IP6', address: '2001:db8::2' }], 'a media-level c= in IPv6')
  t.same(rtpmapOf(sdp.media[2]!, 99), { payloadType: 99, encoding: 'h263-1998', clockRateHz: 90000 })
})

t.test('lines MUST end in CRLF, and a bare LF MUST be accepted too (§5); a Buffer reads as UTF-8', async (t) => {
  const lf = RFC3264_ANSWER.replaceAll('\r\n', '\n')
  t.same(parsed(lf), parsed(RFC3264_ANSWER))
  t.same(parsed(Buffer.from(RFC3264_ANSWER)), parsed(RFC3264_ANSWER))
  t.same(parsed(RFC3264_ANSWER.slice(0, -2)), parsed(RFC3264_ANSWER), 'the last line without its CRLF')
  t.equal(parsed(Buffer.from(crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=Çağrı', 't=0 0'))).sessionName, 'Çağrı')
  t.same(parsed(`${RFC3264_ANSWER}\r\n\r\n`), parsed(RFC3264_ANSWER), 'blank lines carry nothing and are skipped')
})

t.test('an empty s= and the RECOMMENDED "s= " MUST both be read as written', async (t) => {
  t.equal(parsed(RFC3264_ANSWER).sessionName, '')
  t.equal(parsed(RFC3264_ANSWER.replace('s=\r\n', 's= \r\n')).sessionName, ' ')
})

t.test('attributes an audio call reads MUST be typed; media-level ones MUST take precedence over session-level ones', async (t) => {
  const sdp = parsed(ASTERISK_OFFER)
  const audio = sdp.media[0]!
  t.same(rtpmapOf(audio, 107), { payloadType: 107, encoding: 'opus', clockRateHz: 48000, channels: 2 })
  t.same(rtpmapOf(audio, 110), { payloadType: 110, encoding: 'telephone-event', clockRateHz: 8000 })
  t.equal(fmtpOf(audio, '110'), '0-16')
  t.equal(fmtpOf(audio, '107'), 'useinbandfec=1')
  t.equal(millisecondsOf(sdp, audio, 'ptime'), 20)
  t.equal(millisecondsOf(sdp, audio, 'maxptime'), 150)
  t.equal(directionOf(sdp, audio), 'sendrecv')

  const sessionLevel = parsed(
    crlf(
      'v=0',
      'o=- 1 1 IN IP4 192.0.2.1',
      's=-',
      'c=IN IP4 192.0.2.1',
      't=0 0',
      'a=recvonly',
      'a=ptime:30',
      'm=audio 4000 RTP/AVP 0',
      'm=audio 4002 RTP/AVP 0',
      'a=inactive',
      'a=ptime:10',
    ),
  )
  t.equal(directionOf(sessionLevel, sessionLevel.media[0]!), 'recvonly', 'a session-level direction applies to every stream')
  t.equal(directionOf(sessionLevel, sessionLevel.media[1]!), 'inactive', 'unless the stream says otherwise')
  t.equal(millisecondsOf(sessionLevel, sessionLevel.media[0]!, 'ptime'), 30)
  t.equal(millisecondsOf(sessionLevel, sessionLevel.media[1]!, 'ptime'), 10)
  const none = parsed(RFC3264_ANSWER)
  t.equal(directionOf(none, none.media[0]!), 'sendrecv', 'absent everywhere, a stream is sendrecv')
})

t.test('a=rtcp (RFC 3605) with and without an address, and a=rtcp-mux, MUST be read', async (t) => {
  t.same(rtcpOf(parsed(LINPHONE_OFFER).media[0]!), { port: 7079 })
  const savpf = parsed(SAVPF_OFFER)
  t.same(rtcpOf(savpf.media[0]!), { port: 9, address: '0.0.0.0' })
  t.ok(savpf.media[0]!.attributes.some((a) => a.name === 'rtcp-mux' && a.value === undefined))
})

t.test('unknown attributes MUST be kept verbatim, in order, with or without a value', async (t) => {
  const sdp = parsed(LINPHONE_OFFER)
  t.same(sdp.attributes, [{ name: 'rtcp-xr', value: 'rcvr-rtt=all:10000 stat-summary=loss,dup,jitt,TTL voip-metrics' }])
  t.same(
    sdp.media[0]!.attributes.filter((a) => a.name === 'rtcp-fb'),
    [
      { name: 'rtcp-fb', value: '* trr-int 1000' },
      { name: 'rtcp-fb', value: '* ccm tmmbr' },
    ],
  )
  const odd = parsed(crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 192.0.2.1', 't=0 0', 'a=x-empty:', 'a=x-flag', 'a=x-colons:a:b:c'))
  t.same(odd.attributes, [{ name: 'x-empty', value: '' }, { name: 'x-flag' }, { name: 'x-colons', value: 'a:b:c' }])
})

t.test('c= addresses: IPv4, IPv6, multicast suffixes, and domain names (accepted, flagged for the caller)', async (t) => {
  const conn = (line: string) => parsed(crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', line, 't=0 0')).connection
  t.same(conn('c=IN IP4 224.2.36.42/127/3'), { netType: 'IN', addrType: 'IP4', address: '224.2.36.42', ttl: 127, addressCount: 3 })
  t.same(conn('c=IN IP4 224.2.36.42/127'), { netType: 'IN', addrType: 'IP4', address: '224.2.36.42', ttl: 127 })
  t.same(conn('c=IN IP6 ff15::101/3'), { netType: 'IN', addrType: 'IP6', address: 'ff15::101', addressCount: 3 })
  t.same(conn('c=IN IP4 host.anywhere.com'), { netType: 'IN', addrType: 'IP4', address: 'host.anywhere.com' })
  t.equal(classifyAddress('IP4', 'host.anywhere.com'), 'fqdn')
  t.equal(classifyAddress('IP4', '192.0.2.1'), 'ipv4')
  t.equal(classifyAddress('IP6', '2001:db8::1'), 'ipv6')
  t.equal(classifyAddress('IP4', '2001:db8::1'), undefined, 'an IPv6 literal under IP4 is neither')
  t.equal(classifyAddress('IP6', '192.0.2.1'), undefined)
  t.equal(classifyAddress('IP6', 'fe80::1%eth0'), undefined, 'a zone identifier is local to its host')
  t.same(conn('c=ATM NSAP 47.0005.80.ffe100'), { netType: 'ATM', addrType: 'NSAP', address: '47.0005.80.ffe100' }, 'another network type is kept as text')
})

t.test('t= with r= lines, z= and k= MUST be kept as written', async (t) => {
  const sdp = parsed(
    crlf(
      'v=0',
      'o=- 1 1 IN IP4 192.0.2.1',
      's=-',
      'c=IN IP4 192.0.2.1',
      'b=AS:64',
      't=3034423619 3042462419',
      'r=7d 1h 0 25h',
      'r=604800 3600 0 90000',
      't=0 0',
      'z=2882844526 -1h 2898848070 0',
      'k=prompt',
      'm=audio 4000 RTP/AVP 0',
      'b=TIAS:64000',
    ),
  )
  t.same(sdp.timings, [
    { start: '3034423619', stop: '3042462419', repeats: ['7d 1h 0 25h', '604800 3600 0 90000'] },
    { start: '0', stop: '0', repeats: [] },
  ])
  t.equal(sdp.timeZones, '2882844526 -1h 2898848070 0')
  t.equal(sdp.key, 'prompt')
  t.same(sdp.bandwidths, [{ type: 'AS', value: 64 }])
  t.same(sdp.media[0]!.bandwidths, [{ type: 'TIAS', value: 64000 }])
})

t.test('a non-RTP m= line MAY carry token formats; port/count MUST be read', async (t) => {
  const sdp = parsed(
    crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 192.0.2.1', 't=0 0', 'm=application 5000 UDP/BFCP *', 'm=video 49170/2 RTP/AVP 31'),
  )
  t.same(sdp.media[0]!.formats, ['*'])
  t.equal(sdp.media[1]!.portCount, 2)
})

t.test('a refused stream (port 0) MAY leave out its c= line', async (t) => {
  const sdp = parsed(crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 't=0 0', 'm=audio 4000 RTP/AVP 0', 'c=IN IP4 192.0.2.1', 'm=video 0 RTP/AVP 31'))
  t.equal(sdp.media.length, 2)
})
