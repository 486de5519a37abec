// Requests within a dialog (RFC 3261 §12.2.1.1).
import t from 'tap'
import { Dialog, type DialogId, requestTarget } from '../../../sip/dialog/index.js'
import { NameAddr, parseUri, SipUri, type Uri } from '../../../sip/message/index.js'
import { lines } from './helpers.js'

const ID: DialogId = { callId: 'a84b4c76e66710', localTag: '1928301774', remoteTag: 'a6c85cf' }
const uri = (text: string): Uri => parseUri(text)!
const addr = (text: string) => NameAddr.parse(text)!

function dialog(routeSet: string[] = [], localCSeq: number | undefined = 314159): Dialog {
  return new Dialog({
    id: ID,
    state: 'confirmed',
    localUri: addr('Alice <sip:alice@atlanta.com>'),
    remoteUri: addr('Bob <sip:bob@biloxi.com>'),
    remoteTarget: uri('sip:bob@192.0.2.4'),
    routeSet: routeSet.map(addr),
    localCSeq,
    remoteCSeq: undefined,
    secure: false,
    localContact: addr('<sip:alice@pc33.atlanta.com>'),
  })
}

t.test('a BYE MUST be written as §12.2.1.1 builds it: target, tags, Call-ID, CSeq + 1, Max-Forwards', async (t) => {
  const bye = dialog().createRequest('BYE')
  t.same(lines(bye), [
    'BYE sip:bob@192.0.2.4 SIP/2.0',
    'Max-Forwards: 70',
    'To: "Bob" <sip:bob@biloxi.com>;tag=a6c85cf',
    'From: "Alice" <sip:alice@atlanta.com>;tag=1928301774',
    'Call-ID: a84b4c76e66710',
    'CSeq: 314160 BYE',
    'Content-Length: 0',
    '',
    '',
  ])
  t.same(bye.headers.via(), [], 'no Via: the transaction layer prepends it')
})

t.test('CSeq MUST increase by one per request and the local CSeq MUST follow', async (t) => {
  const d = dialog()
  t.equal(d.createRequest('INFO').headers.cseq().seq, 314160)
  t.equal(d.nextLocalCSeq(), 314161, 'a re-sent request takes a number too (§22.2)')
  t.equal(d.createRequest('BYE').headers.cseq().seq, 314162)
  t.equal(d.localCSeq, 314162)
})

t.test('target refresh requests MUST carry our Contact; others MUST NOT', async (t) => {
  const d = dialog()
  for (const method of ['INVITE', 'UPDATE', 'SUBSCRIBE', 'NOTIFY', 'REFER'])
    t.equal(d.createRequest(method).headers.get('Contact'), '<sip:alice@pc33.atlanta.com>', method)
  for (const method of ['BYE', 'INFO', 'OPTIONS', 'MESSAGE', 'PRACK']) t.notOk(d.createRequest(method).headers.has('Contact'), method)
})

t.test('a loose route set MUST give Route in order and keep the remote target as Request-URI', async (t) => {
  const req = dialog(['<sip:ss1.atlanta.example.com;lr>', '<sip:ss2.biloxi.example.com;lr>']).createRequest('BYE')
  t.equal(req.uri.serialize(), 'sip:bob@192.0.2.4')
  t.same(req.headers.getAll('Route'), ['<sip:ss1.atlanta.example.com;lr>', '<sip:ss2.biloxi.example.com;lr>'])
})

t.test('a strict first route MUST become the Request-URI with the remote target last in Route (§12.2.1.1 example)', async (t) => {
  const { uri: requestUri, route } = requestTarget(uri('sip:user@remoteua'), ['<sip:proxy1>', '<sip:proxy2>', '<sip:proxy3;lr>', '<sip:proxy4>'].map(addr))
  t.equal(requestUri.serialize(), 'sip:proxy1')
  t.same(
    route.map((r) => r.serialize()),
    ['<sip:proxy2>', '<sip:proxy3;lr>', '<sip:proxy4>', '<sip:user@remoteua>'],
  )
  const stripped = requestTarget(uri('sip:u@h'), [addr('<sip:proxy1;method=INVITE;transport=udp?Subject=x>')])
  t.equal(stripped.uri.serialize(), 'sip:proxy1;transport=udp', 'parameters a Request-URI may not have are stripped (§19.1.1)')
  t.equal(stripped.uri instanceof SipUri, true)
})

t.test('a body MUST come with its Content-Type; extra fields MUST follow the dialog ones', async (t) => {
  const req = dialog().createRequest('INVITE', {
    body: Buffer.from('v=0\r\n'),
    contentType: 'application/sdp',
    extraHeaders: [
      ['Supported', 'timer'],
      ['Session-Expires', '1800'],
    ],
  })
  t.equal(req.headers.contentType()?.essence, 'application/sdp')
  t.same([req.headers.get('Supported'), req.headers.get('Session-Expires')], ['timer', '1800'])
  t.equal(req.body.toString(), 'v=0\r\n')
  t.throws(() => dialog().createRequest('INFO', { body: Buffer.from('x') }), TypeError, 'a body without a type')
  t.throws(() => dialog().createRequest('INFO', { extraHeaders: [['call-id', 'x']] }), TypeError, 'a field the dialog owns')
  t.throws(() => dialog().createRequest('INFO', { extraHeaders: [['Via', 'SIP/2.0/UDP h']] }), TypeError)
})

t.test('ACK and CANCEL MUST NOT be built by createRequest, nor anything by a terminated dialog', async (t) => {
  const d = dialog()
  t.throws(() => d.createRequest('ACK'), TypeError)
  t.throws(() => d.createRequest('CANCEL'), TypeError)
  d.transition('terminated')
  t.throws(() => d.createRequest('BYE'), { name: 'DialogStateError' })
})

t.test('the state machine MUST allow only early → confirmed → terminated (and early → terminated)', async (t) => {
  const d = dialog()
  t.throws(() => d.transition('early'), { name: 'DialogStateError' })
  t.throws(() => d.transition('confirmed'), { name: 'DialogStateError' })
  d.transition('terminated')
  t.throws(() => d.transition('confirmed'), { name: 'DialogStateError' })
})
