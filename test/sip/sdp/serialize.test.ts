// Serializing: what parseSdp reads back MUST be what was written, and every line MUST survive.
import t from 'tap'
import { parseSdp, type SessionDescription, serializeSdp } from '../../../sip/sdp/index.js'
import { ALL_FIXTURES, crlf } from './fixtures.js'

function parsed(text: string): SessionDescription {
  const result = parseSdp(text)
  if (!result.ok) throw new Error(`expected to parse: ${result.error.code} at line ${result.error.line}`)
  return result.sdp
}

t.test('every fixture MUST serialize back to its exact bytes (CRLF, line order, unknown attributes kept)', async (t) => {
  for (const [name, text] of Object.entries(ALL_FIXTURES)) t.equal(serializeSdp(parsed(text)), text, name)
})

t.test('a description read with bare LFs and blank lines MUST be written with CRLF and none', async (t) => {
  const text = crlf('v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 192.0.2.1', 't=0 0', 'm=audio 4000 RTP/AVP 0')
  t.equal(serializeSdp(parsed(text.replaceAll('\r\n', '\n').replace('t=0 0\n', 't=0 0\n\n'))), text)
})

t.test('every line type MUST round-trip: r=, z=, k=, b=, multicast c=, port/count', async (t) => {
  const text = crlf(
    'v=0',
    'o=jdoe 2890844526 2890842807 IN IP4 10.47.16.5',
    's=SDP Seminar',
    'i=A Seminar on the session description protocol',
    'u=http://www.example.com/seminars/sdp.pdf',
    'e=j.doe@example.com (Jane Doe)',
    'p=+1 617 555-6011',
    'c=IN IP4 224.2.17.12/127',
    'b=CT:128',
    't=2873397496 2873404696',
    'r=7d 1h 0 25h',
    'z=2882844526 -1h 2898848070 0',
    'k=clear:secret',
    'a=recvonly',
    'm=audio 49170 RTP/AVP 0',
    'm=video 51372/2 RTP/AVP 99',
    'i=the video',
    'c=IN IP6 ff15::101/3',
    'b=AS:256',
    'k=prompt',
    'a=rtpmap:99 h263-1998/90000',
  )
  t.equal(serializeSdp(parsed(text)), text)
})

t.test('a value built in code holding CR or LF MUST NOT inject a line', async (t) => {
  const sdp = parsed(ALL_FIXTURES['RFC3264_ANSWER']!)
  const text = serializeSdp({ ...sdp, sessionName: 'x\r\na=injected', attributes: [{ name: 'x-note', value: 'a\nm=video 1 RTP/AVP 0' }] })
  const again = parsed(text)
  t.equal(again.media.length, sdp.media.length)
  t.notOk(again.attributes.some((a) => a.name === 'injected'))
})
