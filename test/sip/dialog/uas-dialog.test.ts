// A UAS's dialog from the INVITE it answers (RFC 3261 §12.1.1).
import t from 'tap'
import { uasDialog } from '../../../sip/dialog/index.js'
import { NameAddr, SipUri } from '../../../sip/message/index.js'
import { RFC3665_INVITE_AT_BOB, request } from './helpers.js'

const CONTACT = new NameAddr(new SipUri({ user: 'bob', host: 'client.biloxi.example.com', params: undefined }))

t.test('the UAS dialog MUST take the §12.1.1 state from the request (RFC 3665 §3.2 F4)', async (t) => {
  const made = uasDialog(request(RFC3665_INVITE_AT_BOB), { localTag: '314159', localContact: CONTACT })
  if (!made.ok) throw made.error
  const d = made.value
  t.same(d.id, { callId: '3848276298220188511@atlanta.example.com', localTag: '314159', remoteTag: '9fxced76sl' })
  t.same(
    d.routeSet.map((r) => r.uri.serialize()),
    ['sip:ss2.biloxi.example.com;lr', 'sip:ss1.atlanta.example.com;lr'],
    'route set MUST be the Record-Route in order',
  )
  t.equal(d.remoteTarget.serialize(), 'sip:alice@client.atlanta.example.com;transport=tcp', 'remote target MUST be the Contact URI')
  t.equal(d.remoteCSeq, 1, 'remote sequence number MUST be the request CSeq')
  t.equal(d.localCSeq, undefined, 'local sequence number MUST be empty')
  t.equal(d.localUri.serialize(), '"Bob" <sip:bob@biloxi.example.com>', 'local URI from To')
  t.equal(d.remoteUri.serialize(), '"Alice" <sip:alice@atlanta.example.com>', 'remote URI from From')
  t.equal(d.localAddress().serialize(), '"Bob" <sip:bob@biloxi.example.com>;tag=314159', 'the To of our responses carries our tag')
  t.equal(d.state, 'confirmed')
})

t.test('a UAS dialog made with a 1xx MUST be early until the final answer (§13.3.1.4)', async (t) => {
  for (const [status, state] of [
    [200, 'confirmed'],
    [486, 'terminated'],
    [180, 'early'],
  ] as const) {
    const made = uasDialog(request(RFC3665_INVITE_AT_BOB), { localTag: 'x1', localContact: CONTACT, state: 'early' })
    if (!made.ok) throw made.error
    made.value.answered(status)
    t.equal(made.value.state, state, String(status))
  }
})

t.test('the first request of a UAS MUST choose an initial CSeq below 2**31 (§12.2.1.1, §8.1.1.5)', async (t) => {
  const made = uasDialog(request(RFC3665_INVITE_AT_BOB), { localTag: 'x1', localContact: CONTACT, initialLocalCSeq: 7000 })
  if (!made.ok) throw made.error
  t.equal(made.value.createRequest('BYE').headers.cseq().seq, 7000)
  t.equal(made.value.createRequest('INFO').headers.cseq().seq, 7001)
  const byDefault = uasDialog(request(RFC3665_INVITE_AT_BOB), { localTag: 'x1', localContact: CONTACT })
  t.equal(byDefault.ok && byDefault.value.createRequest('BYE').headers.cseq().seq, 1)
  t.throws(() => uasDialog(request(RFC3665_INVITE_AT_BOB), { localTag: 'x1', localContact: CONTACT, initialLocalCSeq: 2 ** 31 }), RangeError)
})

t.test('requests that cannot make a dialog MUST come back as typed errors', async (t) => {
  const code = (lines: string[]) => {
    const made = uasDialog(request(lines), { localTag: 'x1', localContact: CONTACT })
    return made.ok ? 'ok' : made.error.code
  }
  t.equal(code(RFC3665_INVITE_AT_BOB.filter((l) => !l.startsWith('Contact'))), 'no_contact')
  t.equal(code(RFC3665_INVITE_AT_BOB.map((l) => (l.startsWith('From') ? 'From: <sip:alice@atlanta.example.com>' : l))), 'no_tag')
  t.equal(code(RFC3665_INVITE_AT_BOB.map((l) => (l.startsWith('To') ? 'To: <sip:bob@biloxi.example.com>;tag=abc' : l))), 'not_dialog_creating')
  t.equal(code([...RFC3665_INVITE_AT_BOB.filter((l) => !l.startsWith('Contact')), 'Contact: *']), 'no_contact', 'a wildcard is no target')
  t.throws(() => uasDialog(request(RFC3665_INVITE_AT_BOB), { localTag: 'not a token', localContact: CONTACT }), TypeError)
})
