// Messages the transaction layer builds (RFC 3261 §8.1.1.7, §8.2.6).
import t from 'tap'
import { BRANCH_COOKIE, parseSipMessage } from '../../../sip/index.js'
import { newBranch, responseTo } from '../../../sip/transaction/index.js'
import { request } from './fixtures.js'

t.test('a branch MUST start with the magic cookie and be unique (§8.1.1.7)', async (t) => {
  const branches = new Set(Array.from({ length: 1000 }, () => newBranch()))
  t.equal(branches.size, 1000)
  for (const branch of branches) t.ok(branch.startsWith(BRANCH_COOKIE) && /^[A-Za-z0-9]+$/.test(branch), branch)
})

t.test('a response MUST copy every Via in order, From, To, Call-ID and CSeq, and add the To tag (§8.2.6.2)', async (t) => {
  const req = request({
    extra: [
      ['Via', 'SIP/2.0/UDP proxy.example;branch=z9hG4bKp1'],
      ['Timestamp', '54'],
    ],
  })
  const response = responseTo(req, 180, 'Ringing', { toTag: 'abc', headers: [['Contact', '<sip:bob@192.0.2.4>']] })
  const text = response.serialize().toString()
  t.equal(
    text,
    [
      'SIP/2.0 180 Ringing',
      'Via: SIP/2.0/UDP pc33.atlanta.example;branch=z9hG4bK776asdhds',
      'Via: SIP/2.0/UDP proxy.example;branch=z9hG4bKp1',
      'From: <sip:alice@atlanta.example>;tag=1928301774',
      'To: <sip:bob@biloxi.example>;tag=abc',
      'Call-ID: a84b4c76e66710@pc33.atlanta.example',
      'CSeq: 314159 INVITE',
      'Contact: <sip:bob@192.0.2.4>',
      'Content-Length: 0',
      '',
      '',
    ].join('\r\n'),
  )
  t.ok(parseSipMessage(response.serialize()).ok, 'well-formed')
})

t.test('a To that has a tag MUST keep it; a 100 MUST copy Timestamp (§8.2.6.1)', async (t) => {
  const inDialog = request({ toTag: 'dialog', extra: [['Timestamp', '54.2 0.1']] })
  t.equal(responseTo(inDialog, 200, 'OK', { toTag: 'new' }).headers.to().tag, 'dialog')
  t.equal(responseTo(inDialog, 100, 'Trying').headers.get('Timestamp'), '54.2 0.1')
  t.equal(responseTo(inDialog, 200, 'OK').headers.get('Timestamp'), undefined)
})
