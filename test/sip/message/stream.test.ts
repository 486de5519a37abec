// Framing messages out of a TCP byte stream by Content-Length (RFC 3261 §18.3, §7.5; RFC 5626 §3.5.1).
import t from 'tap'
import { SipRequest, SipStreamParser, type StreamEvent } from '../../../sip/index.js'

function options(n: number, body = ''): Buffer {
  return Buffer.from(
    `OPTIONS sip:bob@biloxi.com SIP/2.0\r\nVia: SIP/2.0/TCP a.example.com;branch=z9hG4bK${n}\r\nTo: <sip:bob@biloxi.com>\r\nFrom: <sip:a@example.com>;tag=1\r\nCall-ID: s${n}@a\r\nCSeq: ${n} OPTIONS\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}

function branches(events: StreamEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'message' ? [e.message.headers.topVia()?.branch ?? ''] : [e.type]))
}

t.test('messages MUST be framed by Content-Length, however the bytes are chunked', async (t) => {
  const stream = Buffer.concat([options(1, 'body one'), options(2), options(3, 'x'.repeat(300))])
  for (const size of [1, 2, 7, 64, stream.length]) {
    const parser = new SipStreamParser()
    const events: StreamEvent[] = []
    for (let i = 0; i < stream.length; i += size) events.push(...parser.push(stream.subarray(i, i + size)))
    t.same(branches(events), ['z9hG4bK1', 'z9hG4bK2', 'z9hG4bK3'], `chunks of ${size}`)
    t.equal(parser.bufferedBytes, 0)
  }
})

t.test('a body holding CRLFCRLF or a start line is part of the body, not a new message', async (t) => {
  const body = 'v=0\r\n\r\nINVITE sip:x@y SIP/2.0\r\n\r\n'
  const events = new SipStreamParser().push(options(1, body))
  t.equal(events.length, 1)
  t.equal(events[0]?.type === 'message' && events[0].message.body.toString(), body)
})

t.test('CRLFCRLF between messages is a keep-alive ping (RFC 5626 §3.5.1); lone CRLFs are skipped (§7.5)', async (t) => {
  const parser = new SipStreamParser()
  t.same(branches(parser.push(Buffer.from('\r\n\r\n'))), ['keepalive'])
  t.same(branches(parser.push(Buffer.concat([Buffer.from('\r\n'), options(1)]))), ['z9hG4bK1'])
  t.same(branches(parser.push(Buffer.from('\r\n'))), [])
  t.same(branches(parser.push(Buffer.from('\r\n'))), ['keepalive'], 'a ping split across two reads')
})

t.test('a malformed but framed message is reported and the stream goes on', async (t) => {
  const bad = Buffer.from(options(9).toString().replace('CSeq: 9 OPTIONS', 'CSeq: 9 INVITE'))
  const events = new SipStreamParser().push(Buffer.concat([bad, options(2)]))
  t.same(
    events.map((e) => e.type === 'error' && [e.error.code, e.fatal]),
    [['cseq_mismatch', false], false],
  )
  t.ok(events[1]?.type === 'message' && events[1].message instanceof SipRequest)
})

t.test('a missing Content-Length on a stream MUST be an error that ends the framing (§18.3)', async (t) => {
  const parser = new SipStreamParser()
  const noLength = Buffer.from(options(1).toString().replace('Content-Length: 0\r\n', ''))
  const events = parser.push(noLength)
  t.same(
    events.map((e) => e.type === 'error' && [e.error.code, e.fatal]),
    [['missing_content_length', true]],
  )
  t.ok(events[0]?.type === 'error' && events[0].error.reply, 'the request can still be answered before closing')
  t.ok(parser.closed)
  t.same(parser.push(options(2)), [], 'nothing after a fatal error')
  t.equal(parser.bufferedBytes, 0, 'and nothing held')
})

t.test('a message over maxMessageBytes MUST end the framing instead of growing the buffer', async (t) => {
  const parser = new SipStreamParser({ limits: { maxMessageBytes: 1024 } })
  const big = parser.push(options(1, 'x'.repeat(2000)))
  t.same(
    big.map((e) => e.type === 'error' && [e.error.code, e.fatal]),
    [['too_large', true]],
  )
  const endless = new SipStreamParser({ limits: { maxMessageBytes: 1024 } })
  const events: StreamEvent[] = []
  for (let i = 0; i < 100 && !endless.closed; i++) {
    events.push(...endless.push(Buffer.from(`X-Header-${i}: ${'y'.repeat(40)}\r\n`)))
    t.ok(endless.bufferedBytes <= 1024 + 64, 'never more than the limit plus one read')
  }
  t.same(
    events.map((e) => e.type === 'error' && e.error.code),
    ['too_large'],
    'a header section that never ends',
  )
})
