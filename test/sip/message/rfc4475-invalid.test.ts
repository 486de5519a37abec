// RFC 4475 §3.1.2 (and the other sections' messages): a malformed request MUST be answered with 400
// (505 for an unknown SIP version) when a response can be built, and a malformed response dropped;
// nothing may throw. Expectations come from the RFC's text for each message.
import t from 'tap'
import { badRequestResponse, parseSipMessage, SipResponse, SipStreamParser } from '../../../sip/index.js'
import { INVALID, torture } from './rfc4475-corpus.js'

/** name → [kind, status, reason the 400 carries] per RFC 4475 §3.1.2.x. */
const EXPECTED: Record<string, ['request' | 'response', 400 | 505, string]> = {
  badinv01: ['request', 400, 'Malformed Via header field'], // §3.1.2.1 extraneous separators
  clerr: ['request', 400, 'Content-Length larger than the message body'], // §3.1.2.2
  ncl: ['request', 400, 'Malformed Content-Length header field'], // §3.1.2.3
  scalar02: ['request', 400, 'Malformed CSeq header field'], // §3.1.2.4: "due to the CSeq error"
  scalarlg: ['response', 400, 'Malformed CSeq header field'], // §3.1.2.5
  quotbal: ['request', 400, 'Malformed To header field'], // §3.1.2.6
  ltgtruri: ['request', 400, 'Malformed Request-URI'], // §3.1.2.7
  lwsruri: ['request', 400, 'Malformed Request-Line'], // §3.1.2.8
  lwsstart: ['request', 400, 'Malformed Request-Line'], // §3.1.2.9
  trws: ['request', 400, 'Malformed Request-Line'], // §3.1.2.10
  escruri: ['request', 400, 'Malformed Request-URI'], // §3.1.2.11
  baddate: ['request', 400, 'Malformed Date header field'], // §3.1.2.12
  regbadct: ['request', 400, 'Malformed Contact header field'], // §3.1.2.13
  badaspec: ['request', 400, 'Malformed To header field'], // §3.1.2.14
  baddn: ['request', 400, 'Malformed From header field'], // §3.1.2.15
  badvers: ['request', 505, 'Version Not Supported'], // §3.1.2.16
  mismatch01: ['request', 400, 'CSeq method does not match the request method'], // §3.1.2.17
  mismatch02: ['request', 400, 'CSeq method does not match the request method'], // §3.1.2.18
  bigcode: ['response', 400, 'Malformed Status-Line'], // §3.1.2.19
}

t.test('the corpus holds exactly the RFC 4475 §3.1.2 list', async (t) => {
  t.same(Object.keys(EXPECTED).sort(), [...INVALID].sort())
})

for (const name of INVALID) {
  const [kind, status, reason] = EXPECTED[name]!
  const requirement =
    kind === 'request' ? `${name}: a malformed request MUST be answered with ${status} "${reason}"` : `${name}: a malformed response MUST be dropped`
  t.test(requirement, async (t) => {
    const result = parseSipMessage(torture(name))
    t.notOk(result.ok, 'not accepted')
    if (result.ok) return
    const { error } = result
    t.equal(error.kind, kind)
    t.equal(error.status, status)
    t.equal(error.reason, reason)
    const response = badRequestResponse(error)
    if (kind === 'response') {
      t.equal(response, undefined, 'no response is ever sent to a response')
      return
    }
    t.ok(response, 'a response can be built')
    if (!response) return
    t.equal(response.status, status)
    t.equal(response.reason, reason)
    // §8.2.6.2: From, Call-ID, CSeq and every Via are copied; To too, with a tag added when it had none.
    const reply = error.reply!
    t.same(response.headers.getAll('Via'), reply.via)
    t.equal(response.headers.get('From'), reply.from)
    t.equal(response.headers.get('Call-ID'), reply.callId)
    t.equal(response.headers.get('CSeq'), reply.cseq)
    t.ok(response.headers.get('To')?.startsWith(reply.to))
    const again = parseSipMessage(response.serialize())
    if (again.ok) {
      t.ok(again.message instanceof SipResponse, 'the answer, when its copied fields parse, is a well-formed response')
      t.ok(again.message.headers.to().tag, 'with a To tag')
    }
  })
}

t.test('clerr over TCP: a Content-Length past the data received means wait for more (§3.1.2.2)', async (t) => {
  const parser = new SipStreamParser()
  const bytes = torture('clerr')
  t.same(parser.push(bytes), [], 'no message and no error yet')
  t.equal(parser.bufferedBytes, bytes.length, 'the bytes are held, bounded by maxMessageBytes')
  t.notOk(parser.closed)
})

t.test('ncl over TCP: a negative Content-Length loses the framing, so the connection MUST be given up (§3.1.2.3)', async (t) => {
  const parser = new SipStreamParser()
  const events = parser.push(torture('ncl'))
  t.equal(events.length, 1)
  t.same(events[0]?.type === 'error' && [events[0].fatal, events[0].error.code], [true, 'bad_content_length'])
  t.ok(parser.closed)
  t.ok(events[0]?.type === 'error' && badRequestResponse(events[0].error), 'a 400 may still be sent before closing')
})

t.test('the §3.2-§3.4 messages: a parser MUST NOT break, and leaves semantics to the layers above', async (t) => {
  const accepted = [
    'badbranch',
    'unkscm',
    'novelsc',
    'unksm2',
    'bext01',
    'invut',
    'regaut01',
    'bcast',
    'zeromf',
    'cparam01',
    'cparam02',
    'regescrt',
    'sdp01',
    'inv2543',
  ]
  for (const name of accepted) t.ok(parseSipMessage(torture(name)).ok, `${name} parses`)
})

t.test('insuf (§3.3.1): without From, To and Call-ID no response can be built, so it is dropped', async (t) => {
  const result = parseSipMessage(torture('insuf'))
  t.same(!result.ok && [result.error.code, result.error.reply], ['missing_header', undefined])
  t.equal(!result.ok && badRequestResponse(result.error), undefined)
})

t.test('multi01 (§3.3.8): repeated single-instance fields MUST be answered with 400', async (t) => {
  const result = parseSipMessage(torture('multi01'))
  t.same(!result.ok && [result.error.code, result.error.status], ['duplicate_header', 400])
  t.ok(!result.ok && badRequestResponse(result.error))
})

t.test('mcl01 (§3.3.9): conflicting Content-Length values MUST be answered with 400', async (t) => {
  const result = parseSipMessage(torture('mcl01'))
  t.same(!result.ok && [result.error.code, result.error.header], ['duplicate_header', 'Content-Length'])
})

t.test('cparam01/cparam02 (§3.3.12-13): ;param after an unbracketed Contact URI is a header parameter, inside <> a URI parameter', async (t) => {
  for (const [name, onHeader] of [
    ['cparam01', true],
    ['cparam02', false],
  ] as const) {
    const result = parseSipMessage(torture(name))
    if (!result.ok) throw new Error(name)
    const contact = result.message.headers.contact()
    if (contact === '*') throw new Error('unexpected *')
    const uri = contact[0]!.uri
    t.equal(contact[0]!.params.has('unknownparam'), onHeader, `${name}: on the header`)
    t.equal('params' in uri && uri.params.has('unknownparam'), !onHeader, `${name}: on the URI`)
  }
})

t.test('regescrt (§3.3.14): escaped headers are allowed in a bracketed Contact URI', async (t) => {
  const result = parseSipMessage(torture('regescrt'))
  if (!result.ok) throw new Error(result.error.reason)
  const contact = result.message.headers.contact()
  t.same(contact !== '*' && 'headers' in contact[0]!.uri && contact[0]!.uri.headers, [['Route', '<sip:sip.example.com>']])
})

t.test('inv2543 (§3.4.1): an RFC 2543 request (no Max-Forwards, no branch, no Content-Length) MUST be accepted', async (t) => {
  const result = parseSipMessage(torture('inv2543'))
  if (!result.ok) throw new Error(result.error.reason)
  t.equal(result.message.headers.maxForwards(), undefined)
  t.equal(result.message.headers.topVia()?.branch, undefined)
  t.ok(result.message.body.toString().startsWith('v=0'), 'over UDP the body runs to the end of the datagram')
})
