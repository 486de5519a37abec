// Content-Length and framing of datagrams (RFC 3261 §18.3, §20.14, §7.5).
import t from 'tap'
import { parseSipMessage } from '../../../sip/index.js'

function message(contentLength: string | null, body: string, extra = ''): Buffer {
  const cl = contentLength === null ? '' : `Content-Length: ${contentLength}\r\n`
  return Buffer.from(
    `MESSAGE sip:bob@biloxi.com SIP/2.0\r\nVia: SIP/2.0/UDP a.example.com;branch=z9hG4bK1\r\nTo: <sip:bob@biloxi.com>\r\nFrom: <sip:a@example.com>;tag=1\r\nCall-ID: cl@a\r\nCSeq: 1 MESSAGE\r\nContent-Type: text/plain\r\n${extra}${cl}\r\n${body}`,
  )
}

t.test('a datagram whose body is shorter than Content-Length MUST be rejected with 400 (§18.3)', async (t) => {
  const result = parseSipMessage(message('6', 'hello'))
  t.same(!result.ok && [result.error.code, result.error.status, result.error.reason], ['body_truncated', 400, 'Content-Length larger than the message body'])
  t.ok(!result.ok && result.error.reply, 'with what the 400 needs')
})

t.test('bytes of a datagram past Content-Length MUST be discarded (§18.3)', async (t) => {
  const result = parseSipMessage(message('5', 'hello, and more'))
  t.equal(result.ok && result.message.body.toString(), 'hello')
})

t.test('without Content-Length, a datagram body runs to the end of the datagram (§18.3)', async (t) => {
  const result = parseSipMessage(message(null, 'all of it\r\n'))
  t.equal(result.ok && result.message.body.toString(), 'all of it\r\n')
})

t.test('without Content-Length, a message from a stream is an error (§18.3: it MUST be present)', async (t) => {
  const result = parseSipMessage(message(null, ''), { transport: 'stream' })
  t.same(!result.ok && [result.error.code, result.error.reason], ['missing_content_length', 'Missing Content-Length header field'])
})

t.test('a negative, non-numeric or repeated Content-Length MUST be rejected (RFC 4475 §3.1.2.3, §3.3.9)', async (t) => {
  for (const bad of ['-1', 'five', '1e3', '0x10', '99999999999999999999']) {
    const result = parseSipMessage(message(bad, ''))
    t.equal(!result.ok && result.error.code, 'bad_content_length', bad)
  }
  const repeated = parseSipMessage(message('0', '', 'l: 0\r\n'))
  t.same(!repeated.ok && [repeated.error.code, repeated.error.header], ['duplicate_header', 'Content-Length'], 'the compact form counts too')
})

t.test('the compact form l, LWS and leading zeros are a Content-Length (§7.3.3)', async (t) => {
  const result = parseSipMessage(message(null, 'hello', 'l  :  005\r\n'))
  t.equal(result.ok && result.message.body.toString(), 'hello')
})

t.test('CRLFs before the start line MUST be ignored (§7.5)', async (t) => {
  const bytes = Buffer.concat([Buffer.from('\r\n\r\n\r\n'), message('5', 'hello')])
  t.ok(parseSipMessage(bytes).ok)
  const keepalive = parseSipMessage(Buffer.from('\r\n\r\n'))
  t.same(!keepalive.ok && [keepalive.error.code, keepalive.error.kind], ['empty', 'unknown'])
})

t.test('a header section without its empty line is rejected, never waited for', async (t) => {
  const result = parseSipMessage(Buffer.from('OPTIONS sip:a@b.com SIP/2.0\r\nVia: SIP/2.0/UDP a.com\r\n'))
  t.equal(!result.ok && result.error.code, 'no_header_end')
})

t.test('a CR or LF that is not part of a CRLF MUST be rejected (§7: lines end in CRLF)', async (t) => {
  const result = parseSipMessage(message('0', '', 'Subject: a\rb\r\nX: c\nd\r\n'))
  t.equal(!result.ok && result.error.code, 'bare_line_break')
})

t.test('serialize writes a Content-Length that matches the body', async (t) => {
  const result = parseSipMessage(message(null, 'hello'))
  if (!result.ok) throw new Error(result.error.reason)
  const text = result.message.serialize().toString()
  t.match(text, /\r\nContent-Length: 5\r\n\r\nhello$/)
})
