// Malformed descriptions: each MUST come back as a typed error naming the line at fault, never as
// an exception, and the message MUST NOT echo the description's bytes.
import t from 'tap'
import { parseSdp, type SdpParseErrorCode } from '../../../sip/sdp/index.js'
import { crlf } from './fixtures.js'

const HEAD = ['v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 192.0.2.1', 't=0 0']

function errorOf(text: string): { code: SdpParseErrorCode; line: number; message: string } | undefined {
  const result = parseSdp(text)
  return result.ok ? undefined : result.error
}

const cases: Array<[string, string, SdpParseErrorCode, number]> = [
  ['nothing at all', '', 'empty', 0],
  ['only blank lines', '\r\n\r\n', 'empty', 0],
  ['v= missing', crlf(...HEAD.slice(1)), 'missing_line', 1],
  ['o= missing', crlf('v=0', 's=-', 't=0 0'), 'missing_line', 2],
  ['s= missing', crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 't=0 0'), 'missing_line', 3],
  ['t= missing', crlf(...HEAD.slice(0, 4)), 'missing_line', 0],
  ['t= missing before m=', crlf(...HEAD.slice(0, 4), 'm=audio 4000 RTP/AVP 0'), 'missing_line', 5],
  ['version 1', crlf('v=1', ...HEAD.slice(1)), 'bad_version', 1],
  ['not <type>=<value>', crlf(...HEAD, 'hello'), 'bad_line', 6],
  ['an upper-case type', crlf(...HEAD, 'A=sendrecv'), 'bad_line', 6],
  ['a space before =', crlf(...HEAD, 'a =sendrecv'), 'bad_line', 6],
  ['an unknown type letter (§5: MUST be rejected or ignored whole)', crlf(...HEAD, 'x=1'), 'unknown_type', 6],
  ['a bare CR inside a line', crlf(...HEAD, 'a=x-foo:1\rb=AS:1'), 'bad_line', 6],
  ['a NUL byte', crlf(...HEAD, 'a=x-foo:\0'), 'bad_line', 6],
  ['o= with five fields', crlf('v=0', 'o=- 1 IN IP4 192.0.2.1', 's=-', 't=0 0'), 'bad_origin', 2],
  ['o= with a non-numeric version', crlf('v=0', 'o=- 1 x IN IP4 192.0.2.1', 's=-', 't=0 0'), 'bad_origin', 2],
  ['c= with an IPv6 address under IP4', crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 2001:db8::1', 't=0 0'), 'bad_connection', 4],
  ['c= with an address that is neither IP nor a name', crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 300.1.1.1', 't=0 0'), 'bad_connection', 4],
  ['c= with a bad ttl', crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 224.2.1.1/x', 't=0 0'), 'bad_connection', 4],
  ['c= with two fields', crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN 192.0.2.1', 't=0 0'), 'bad_connection', 4],
  ['b= without a number', crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'b=AS:lots', 't=0 0'), 'bad_bandwidth', 4],
  ['t= with one field', crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 't=0'), 'bad_timing', 4],
  ['r= before any t=', crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'r=7d 1h 0 25h', 't=0 0'), 'out_of_order', 4],
  ['m= with a port over 65535', crlf(...HEAD, 'm=audio 70000 RTP/AVP 0'), 'bad_media', 6],
  ['m= with no format', crlf(...HEAD, 'm=audio 4000 RTP/AVP'), 'bad_media', 6],
  ['m= with payload type 128', crlf(...HEAD, 'm=audio 4000 RTP/AVP 0 128'), 'bad_media', 6],
  ['m= with a word for a payload type', crlf(...HEAD, 'm=audio 4000 RTP/AVP PCMU'), 'bad_media', 6],
  ['m= with port/0', crlf(...HEAD, 'm=audio 4000/0 RTP/AVP 0'), 'bad_media', 6],
  ['c= before s= (order, §5)', crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 'c=IN IP4 192.0.2.1', 's=-', 't=0 0'), 'missing_line', 3],
  ['b= after t=', crlf(...HEAD, 'b=AS:64'), 'out_of_order', 6],
  ['a= before t=', crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'a=sendrecv', 't=0 0'), 'out_of_order', 5],
  ['c= after a= in a media part', crlf(...HEAD, 'm=audio 4000 RTP/AVP 0', 'a=sendrecv', 'c=IN IP4 192.0.2.1'), 'out_of_order', 8],
  ['t= inside a media part', crlf(...HEAD, 'm=audio 4000 RTP/AVP 0', 't=0 0'), 'out_of_order', 7],
  ['two session c= lines', crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 192.0.2.1', 'c=IN IP4 192.0.2.2', 't=0 0'), 'duplicate_line', 5],
  ['two v= lines', crlf('v=0', 'v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 't=0 0'), 'missing_line', 2],
  ['two media i= lines', crlf(...HEAD, 'm=audio 4000 RTP/AVP 0', 'i=a', 'i=b'), 'duplicate_line', 8],
  [
    'a stream without any c= (§5.7)',
    crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 't=0 0', 'm=audio 0 RTP/AVP 0', 'm=audio 4000 RTP/AVP 0'),
    'missing_connection',
    6,
  ],
  ['a=rtpmap without a clock rate', crlf(...HEAD, 'm=audio 4000 RTP/AVP 0', 'a=rtpmap:0 PCMU'), 'bad_attribute', 7],
  ['a=rtpmap with payload type 200', crlf(...HEAD, 'm=audio 4000 RTP/AVP 0', 'a=rtpmap:200 PCMU/8000'), 'bad_attribute', 7],
  ['a=fmtp without parameters', crlf(...HEAD, 'm=audio 4000 RTP/AVP 101', 'a=fmtp:101'), 'bad_attribute', 7],
  ['a=ptime that is no number', crlf(...HEAD, 'm=audio 4000 RTP/AVP 0', 'a=ptime:twenty'), 'bad_attribute', 7],
  ['a=ptime:0', crlf(...HEAD, 'm=audio 4000 RTP/AVP 0', 'a=ptime:0'), 'bad_attribute', 7],
  ['a=rtcp with a port over 65535', crlf(...HEAD, 'm=audio 4000 RTP/AVP 0', 'a=rtcp:65536'), 'bad_attribute', 7],
  ['a=rtcp with half an address', crlf(...HEAD, 'm=audio 4000 RTP/AVP 0', 'a=rtcp:4001 IN IP4'), 'bad_attribute', 7],
  ['a=sendonly with a value', crlf(...HEAD, 'm=audio 4000 RTP/AVP 0', 'a=sendonly:yes'), 'bad_attribute', 7],
  ['an attribute name that is no token', crlf(...HEAD, 'a=bad name:1'), 'bad_attribute', 6],
]

for (const [name, text, code, line] of cases) {
  t.test(`${name} MUST be refused as ${code} at line ${line}`, async (t) => {
    const error = errorOf(text)
    t.same(error && { code: error.code, line: error.line }, { code, line })
  })
}

t.test('an error message MUST be a fixed phrase, never bytes of the description', async (t) => {
  const secret = 'hunter2-secret'
  for (const text of [
    crlf(...HEAD, `x=${secret}`),
    crlf(...HEAD, `a=rtpmap:${secret}`),
    crlf('v=0', `o=${secret}`, 's=-', 't=0 0'),
    crlf(...HEAD, `m=audio ${secret}`),
  ]) {
    const error = errorOf(text)
    t.ok(error, 'refused')
    t.notMatch(error?.message ?? '', secret)
  }
})
