// A UAC's dialog from the response to its INVITE (RFC 3261 §12.1.2, §13.2.2.4).
import t from 'tap'
import { uacDialog } from '../../../sip/dialog/index.js'
import { RFC3261_200, RFC3261_INVITE, RFC3665_INVITE, request, response, rfc3665Response } from './helpers.js'

t.test('a 2xx MUST create a confirmed dialog with the §12.1.2 state (RFC 3665 §3.2)', async (t) => {
  const made = uacDialog(request(RFC3665_INVITE), response(rfc3665Response()))
  if (!made.ok) throw made.error
  const d = made.value
  t.equal(d.state, 'confirmed')
  t.same(d.id, { callId: '3848276298220188511@atlanta.example.com', localTag: '9fxced76sl', remoteTag: '314159' })
  t.same(
    d.routeSet.map((r) => r.serialize()),
    ['<sip:ss1.atlanta.example.com;lr>', '<sip:ss2.biloxi.example.com;lr>'],
    'route set MUST be the Record-Route in reverse order',
  )
  t.equal(d.remoteTarget.serialize(), 'sip:bob@client.biloxi.example.com;transport=tcp', 'remote target MUST be the Contact URI')
  t.equal(d.localCSeq, 1, 'local sequence number MUST be the request CSeq')
  t.equal(d.remoteCSeq, undefined, 'remote sequence number MUST be empty')
  t.equal(d.localUri.serialize(), '"Alice" <sip:alice@atlanta.example.com>', 'local URI from From, without the tag')
  t.equal(d.remoteUri.serialize(), '"Bob" <sip:bob@biloxi.example.com>', 'remote URI from To, without the tag')
  t.equal(d.secure, false)
})

t.test('a 2xx without Record-Route MUST leave the route set empty (§24.2 F9)', async (t) => {
  const made = uacDialog(request(RFC3261_INVITE), response(RFC3261_200))
  t.same(made.ok && [made.value.routeSet, made.value.remoteTarget.serialize()], [[], 'sip:bob@192.0.2.4'])
})

t.test('a 1xx with a To tag MUST create an early dialog; the 2xx confirms it and recomputes the route set (§13.2.2.4)', async (t) => {
  const ringing = response([
    'SIP/2.0 180 Ringing',
    ...rfc3665Response()
      .slice(1)
      .filter((l) => !l.startsWith('Record-Route')),
  ])
  const made = uacDialog(request(RFC3665_INVITE), ringing)
  if (!made.ok) throw made.error
  t.equal(made.value.state, 'early')
  t.same(made.value.routeSet, [])
  made.value.receiveResponse(response(rfc3665Response()))
  t.equal(made.value.state, 'confirmed')
  t.same(
    made.value.routeSet.map((r) => r.uri.serialize()),
    ['sip:ss1.atlanta.example.com;lr', 'sip:ss2.biloxi.example.com;lr'],
  )
})

t.test('a non-2xx final response MUST end an early dialog; 481 and 408 MUST end any (§12.2.1.2)', async (t) => {
  const early = uacDialog(request(RFC3665_INVITE), response(rfc3665Response('183 Session Progress')))
  if (!early.ok) throw early.error
  early.value.receiveResponse(response(rfc3665Response('486 Busy Here')))
  t.equal(early.value.state, 'terminated')
  for (const status of ['481 Call/Transaction Does Not Exist', '408 Request Timeout']) {
    const confirmed = uacDialog(request(RFC3665_INVITE), response(rfc3665Response()))
    if (!confirmed.ok) throw confirmed.error
    confirmed.value.receiveResponse(response(rfc3665Response(status).map((l) => (l.startsWith('CSeq') ? 'CSeq: 2 UPDATE' : l))))
    t.equal(confirmed.value.state, 'terminated', status)
  }
})

t.test('a 2xx to a target refresh MUST replace the remote target (§12.2.1.2)', async (t) => {
  const made = uacDialog(request(RFC3665_INVITE), response(rfc3665Response()))
  if (!made.ok) throw made.error
  const reinvite200 = rfc3665Response().map((l) => (l.startsWith('Contact') ? 'Contact: <sip:bob@192.0.2.99>' : l.startsWith('CSeq') ? 'CSeq: 2 INVITE' : l))
  made.value.receiveResponse(response(reinvite200))
  t.equal(made.value.remoteTarget.serialize(), 'sip:bob@192.0.2.99')
  t.equal(made.value.routeSet.length, 2, 'the route set of a confirmed dialog does not change')
  const options200 = reinvite200.map((l) => (l.startsWith('Contact') ? 'Contact: <sip:bob@192.0.2.7>' : l.startsWith('CSeq') ? 'CSeq: 3 OPTIONS' : l))
  made.value.receiveResponse(response(options200))
  t.equal(made.value.remoteTarget.serialize(), 'sip:bob@192.0.2.99', 'OPTIONS is no target refresh')
})

t.test('a SIPS Request-URI MUST make the dialog secure (§12.1.2)', async (t) => {
  const sips = RFC3261_INVITE.map((l, i) => (i === 0 ? 'INVITE sips:bob@biloxi.com SIP/2.0' : l))
  const made = uacDialog(request(sips), response(RFC3261_200))
  t.equal(made.ok && made.value.secure, true)
})

t.test('responses that cannot make a dialog MUST come back as typed errors', async (t) => {
  const invite = request(RFC3261_INVITE)
  const code = (lines: string[], req = invite) => {
    const made = uacDialog(req, response(lines))
    return made.ok ? 'ok' : made.error.code
  }
  t.equal(code(RFC3261_200.filter((l) => !l.startsWith('Contact'))), 'no_contact', 'a 2xx without Contact')
  t.equal(code([...RFC3261_200.filter((l) => !l.startsWith('Contact')), 'Contact: <sip:a@b.com>, <sip:c@d.com>']), 'no_contact', 'two targets')
  t.equal(code(RFC3261_200.map((l) => (l.startsWith('To') ? 'To: Bob <sip:bob@biloxi.com>' : l))), 'no_tag', 'a 2xx without To tag')
  t.equal(code(['SIP/2.0 100 Trying', ...RFC3261_200.slice(1)]), 'not_dialog_creating')
  t.equal(code(['SIP/2.0 486 Busy Here', ...RFC3261_200.slice(1)]), 'not_dialog_creating')
  t.equal(code(RFC3261_200, request(RFC3261_INVITE.filter((l) => !l.startsWith('Contact')))), 'no_contact', 'our INVITE without Contact')
})
