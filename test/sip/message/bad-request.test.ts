// Answering a malformed request (RFC 3261 §8.2, §8.2.6.2, §8.2.7, §21.4.1).
import t from 'tap'
import { badRequestResponse, parseSipMessage, SipResponse } from '../../../sip/index.js'

function malformed(method: string, extra: string, to = 'To: Bob <sip:bob@biloxi.com>'): Buffer {
  return Buffer.from(
    `${method} sip:bob@biloxi.com SIP/2.0\r\nVia: SIP/2.0/UDP pc33.atlanta.com:5066;branch=z9hG4bKnashds8\r\nVia: SIP/2.0/UDP bigbox3.site3.atlanta.com;branch=z9hG4bK77ef4c2312983.1\r\n${to}\r\nFrom: Alice <sip:alice@atlanta.com>;tag=1928301774\r\nCall-ID: a84b4c76e66710\r\nCSeq: 314159 ${method}\r\n${extra}Content-Length: 0\r\n\r\n`,
  )
}

function answer(bytes: Buffer, toTag?: string): SipResponse | undefined {
  const result = parseSipMessage(bytes)
  if (result.ok) throw new Error('expected a parse error')
  return badRequestResponse(result.error, toTag === undefined ? {} : { toTag })
}

t.test('a malformed request MUST be answered 400 with a Reason-Phrase naming the problem (§21.4.1)', async (t) => {
  const response = answer(malformed('INVITE', 'Max-Forwards: many\r\n'))
  t.equal(response?.status, 400)
  t.equal(response?.reason, 'Malformed Max-Forwards header field')
})

t.test('the 400 MUST copy every Via, From, Call-ID and CSeq, and To with a tag added (§8.2.6.2)', async (t) => {
  const response = answer(malformed('INVITE', 'Expires: never\r\n'), 'x1')
  const text = response?.serialize().toString()
  t.equal(
    text,
    [
      'SIP/2.0 400 Malformed Expires header field',
      'Via: SIP/2.0/UDP pc33.atlanta.com:5066;branch=z9hG4bKnashds8',
      'Via: SIP/2.0/UDP bigbox3.site3.atlanta.com;branch=z9hG4bK77ef4c2312983.1',
      'From: Alice <sip:alice@atlanta.com>;tag=1928301774',
      'To: Bob <sip:bob@biloxi.com>;tag=x1',
      'Call-ID: a84b4c76e66710',
      'CSeq: 314159 INVITE',
      'Content-Length: 0',
      '',
      '',
    ].join('\r\n'),
  )
  const parsed = parseSipMessage(response!.serialize())
  t.ok(parsed.ok && parsed.message instanceof SipResponse, 'the 400 is itself a well-formed response')
})

t.test('a To that already has a tag MUST keep it', async (t) => {
  const response = answer(malformed('BYE', 'Expires: never\r\n', 'To: <sip:bob@biloxi.com>;tag=314'))
  t.equal(response?.headers.get('To'), '<sip:bob@biloxi.com>;tag=314')
})

t.test('the same request MUST get the same To tag, as a stateless UAS must give (§8.2.7)', async (t) => {
  const bytes = malformed('INVITE', 'Expires: never\r\n')
  const first = answer(bytes)?.headers.to().tag
  t.ok(first)
  t.equal(answer(bytes)?.headers.to().tag, first)
  const other = malformed('INVITE', 'Expires: never\r\n').toString().replace('a84b4c76e66710', 'other-call')
  t.not(answer(Buffer.from(other))?.headers.to().tag, first, 'another request, another tag')
})

t.test('an ACK MUST NOT be answered (§8.2.7), nor a malformed response (§18.1.2)', async (t) => {
  t.equal(answer(malformed('ACK', 'Expires: never\r\n')), undefined)
  const response = Buffer.from(
    'SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP a.com;branch=z9hG4bK1\r\nTo: <sip:b@c.com>\r\nFrom: <sip:a@c.com>;tag=1\r\nCall-ID: x\r\nCSeq: one INVITE\r\n\r\n',
  )
  t.equal(answer(response), undefined)
})

t.test('another SIP version MUST be answered 505 (§21.5.6)', async (t) => {
  const bytes = Buffer.from(malformed('OPTIONS', '').toString().replace('SIP/2.0\r\n', 'SIP/3.0\r\n'))
  const response = answer(bytes)
  t.same([response?.status, response?.reason], [505, 'Version Not Supported'])
})

t.test('a request without a usable top Via cannot be answered: there is nowhere to send it (§18.2.2)', async (t) => {
  const bytes = Buffer.from(malformed('INVITE', '').toString().replace('SIP/2.0/UDP pc33.atlanta.com:5066', 'garbage'))
  t.equal(answer(bytes), undefined)
})

t.test('the Reason-Phrase never echoes bytes of the request', async (t) => {
  const bytes = malformed('INVITE', 'Date: <script>\r\n')
  const response = answer(bytes)
  t.equal(response?.reason, 'Malformed Date header field')
})
