// SIP over UDP (RFC 3261 §18): datagrams parsed into messages for the handler, malformed requests
// answered 400, over-budget sources 503 then dropped, sends to IP literals only.
import dgram from 'node:dgram'
import { once } from 'node:events'
import t, { type Test } from 'tap'
import { parseSipMessage, type SipMessage, SipRequest, SipResponse } from '../../../sip/index.js'
import type { Peer } from '../../../sip/transaction/index.js'
import { UdpSipListener } from '../../../sip/transport/index.js'

const OPTIONS = (branch: string) =>
  Buffer.from(
    `OPTIONS sip:agent@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5099;branch=z9hG4bK${branch}\r\nMax-Forwards: 70\r\n` +
      `From: <sip:probe@127.0.0.1>;tag=1\r\nTo: <sip:agent@127.0.0.1>\r\nCall-ID: ${branch}@test\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n`,
  )

async function setup(t: Test, sourceLimits = {}) {
  const got: { message: SipMessage; source: Peer }[] = []
  const listener = await UdpSipListener.listen({ host: '127.0.0.1', port: 0, onMessage: (message, source) => got.push({ message, source }), sourceLimits })
  const client = dgram.createSocket('udp4')
  await new Promise<void>((r) => client.bind(0, '127.0.0.1', () => r()))
  const replies: SipResponse[] = []
  client.on('message', (b) => {
    const r = parseSipMessage(b)
    if (r.ok && r.message instanceof SipResponse) replies.push(r.message)
  })
  t.teardown(async () => {
    client.close()
    await listener.close()
  })
  const send = (b: Buffer) => new Promise<void>((r) => client.send(b, listener.port, '127.0.0.1', () => r()))
  const settle = async (until: () => boolean) => {
    for (let i = 0; i < 200 && !until(); i++) await new Promise((r) => setTimeout(r, 5))
  }
  return { listener, client, got, replies, send, settle }
}

t.test('a datagram is handed over as a message with its source (transport, address, port)', async (t) => {
  const s = await setup(t)
  await s.send(OPTIONS('a1'))
  await s.settle(() => s.got.length > 0)
  t.equal(s.got.length, 1)
  t.ok(s.got[0]!.message instanceof SipRequest)
  t.equal((s.got[0]!.message as SipRequest).method, 'OPTIONS')
  t.same(s.got[0]!.source, { transport: 'UDP', host: '127.0.0.1', port: s.client.address().port })
  t.equal(s.listener.stats.received, 1)
})

t.test('a malformed request is answered 400 naming the problem; never delivered (§21.4.1)', async (t) => {
  const s = await setup(t)
  await s.send(Buffer.from(OPTIONS('a2').toString().replace('Max-Forwards: 70', 'Max-Forwards: seventy')))
  await s.settle(() => s.replies.length > 0)
  t.equal(s.replies[0]?.status, 400)
  t.match(s.replies[0]?.reason, /Max-Forwards/)
  t.equal(s.got.length, 0)
  await s.send(Buffer.from('\x00\xff garbage'))
  await s.send(Buffer.from('\r\n\r\n'))
  await s.send(OPTIONS('a3'))
  await s.settle(() => s.got.length > 0)
  t.equal(s.got.length, 1, 'garbage and keep-alives are skipped; the listener goes on')
  t.equal(s.listener.stats.malformed, 2)
})

t.test('a flood: 503 with Retry-After once, the rest dropped, nothing delivered past the budget', async (t) => {
  const s = await setup(t, { burst: 5, perSecond: 0.001 })
  for (let i = 0; i < 50; i++) await s.send(OPTIONS(`f${i}`))
  await s.settle(() => s.listener.stats.received + s.listener.stats.refused + s.listener.stats.dropped >= 50)
  t.equal(s.got.length, 5)
  t.same(s.listener.stats, { received: 5, malformed: 0, refused: 1, dropped: 44 })
  await s.settle(() => s.replies.length > 0)
  t.equal(s.replies.length, 1)
  t.equal(s.replies[0]!.status, 503)
  t.ok(Number(s.replies[0]!.headers.get('Retry-After')) >= 1)
})

t.test('send writes the message to an IP address, and refuses a name', async (t) => {
  const s = await setup(t)
  const target = { transport: 'UDP', host: '127.0.0.1', port: s.client.address().port }
  const got = once(s.client, 'message')
  const request = parseSipMessage(OPTIONS('s1'))
  if (!request.ok) throw new Error('fixture')
  await s.listener.send(request.message, target)
  const [bytes] = (await got) as [Buffer]
  t.match(bytes.toString(), /^OPTIONS sip:agent@127.0.0.1 SIP\/2.0\r\n/)
  await t.rejects(s.listener.send(request.message, { ...target, host: 'carrier.example.com' }), /IP address/)
})
