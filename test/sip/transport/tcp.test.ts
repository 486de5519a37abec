// SIP over TCP (RFC 3261 §18.3, RFC 5626 §3.5.1): messages framed across chunks, responses on the
// connection the request came on, keep-alive pongs, and every connection bounded.
import net from 'node:net'
import t, { type Test } from 'tap'
import { parseSipMessage, type SipMessage, type SipRequest } from '../../../sip/index.js'
import { type Peer, responseTo } from '../../../sip/transaction/index.js'
import { TcpSipListener, type TcpLimits } from '../../../sip/transport/index.js'

const REGISTER = (n: number) =>
  `REGISTER sip:127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1:5099;branch=z9hG4bKtcp${n}\r\nMax-Forwards: 70\r\n` +
  `From: <sip:alice@127.0.0.1>;tag=${n}\r\nTo: <sip:alice@127.0.0.1>\r\nCall-ID: tcp${n}@test\r\nCSeq: ${n} REGISTER\r\nContent-Length: 0\r\n\r\n`

async function setup(t: Test, tcpLimits: Partial<TcpLimits> = {}) {
  const got: { message: SipMessage; source: Peer }[] = []
  const listener = await TcpSipListener.listen({ host: '127.0.0.1', port: 0, onMessage: (message, source) => got.push({ message, source }), tcpLimits })
  const sockets: net.Socket[] = []
  const connect = async () => {
    const s = net.connect(listener.port, '127.0.0.1')
    sockets.push(s)
    await new Promise((r) => s.once('connect', r))
    return s
  }
  t.teardown(async () => {
    for (const s of sockets) s.destroy()
    await listener.close()
  })
  const settle = async (until: () => boolean) => {
    for (let i = 0; i < 400 && !until(); i++) await new Promise((r) => setTimeout(r, 5))
  }
  return { listener, got, connect, settle }
}

t.test('messages split across chunks and two in one chunk are each framed and delivered', async (t) => {
  const s = await setup(t)
  const c = await s.connect()
  const one = REGISTER(1)
  c.write(one.slice(0, 17))
  await new Promise((r) => setTimeout(r, 20))
  c.write(one.slice(17) + REGISTER(2) + REGISTER(3))
  await s.settle(() => s.got.length === 3)
  t.same(
    s.got.map((g) => (g.message as SipRequest).headers.cseq()?.seq),
    [1, 2, 3],
  )
  t.equal(s.got[0]!.source.transport, 'TCP')
  t.ok(s.got[0]!.source.connectionId, 'the source names its connection')
})

t.test('a response goes back on the connection the request came on (§18.2.2)', async (t) => {
  const s = await setup(t)
  const c = await s.connect()
  let text = ''
  c.on('data', (b) => {
    text += b.toString()
  })
  c.write(REGISTER(7))
  await s.settle(() => s.got.length === 1)
  const { message, source } = s.got[0]!
  await s.listener.send(responseTo(message as SipRequest, 200, 'OK'), source)
  await s.settle(() => text.includes('\r\n\r\n'))
  const parsed = parseSipMessage(Buffer.from(text), { transport: 'stream' })
  t.ok(parsed.ok)
  t.match(text, /^SIP\/2.0 200 OK\r\n/)
  t.match(text, /CSeq: 7 REGISTER/)
})

t.test('a CRLFCRLF ping is answered with a CRLF pong (RFC 5626 §3.5.1)', async (t) => {
  const s = await setup(t)
  const c = await s.connect()
  const pong = new Promise<string>((r) => c.once('data', (b) => r(b.toString())))
  c.write('\r\n\r\n')
  t.equal(await pong, '\r\n')
})

t.test('a malformed message is answered 400 on the connection; a framing loss closes it', async (t) => {
  const s = await setup(t)
  const c = await s.connect()
  let text = ''
  c.on('data', (b) => {
    text += b.toString()
  })
  c.write(REGISTER(8).replace('Max-Forwards: 70', 'Max-Forwards: lots'))
  await s.settle(() => text.includes('\r\n\r\n'))
  t.match(text, /^SIP\/2.0 400 /)
  const closed = new Promise((r) => c.once('close', r))
  c.write('REGISTER sip:x SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\n\r\n') // no Content-Length over a stream
  await closed
  t.pass('the connection is closed: its framing cannot be trusted any more')
})

t.test('connections are bounded per source, and an idle one is closed', async (t) => {
  const s = await setup(t, { maxConnectionsPerSource: 2, idleTimeoutMs: 150 })
  const a = await s.connect()
  await s.connect()
  const third = await s.connect()
  await new Promise((r) => third.once('close', r))
  t.pass('the third connection from one source is cut')
  const closed = new Promise((r) => a.once('close', r))
  await closed
  t.pass('a silent connection is closed after the idle timeout')
  await s.settle(() => s.listener.connections === 0)
  t.equal(s.listener.connections, 0, 'and forgotten')
})

t.test('a request to a peer dials it when no connection is open, then reuses the connection', async (t) => {
  const s = await setup(t)
  const seen: string[] = []
  let accepted = 0
  const peer = net.createServer((sock) => {
    accepted++
    sock.on('data', (b) => seen.push(b.toString()))
  })
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', () => r()))
  t.teardown(() => peer.close())
  const target = { transport: 'TCP', host: '127.0.0.1', port: (peer.address() as net.AddressInfo).port }
  const parsed = parseSipMessage(Buffer.from(REGISTER(9)))
  if (!parsed.ok) throw new Error('fixture')
  await s.listener.send(parsed.message, target)
  await s.listener.send(parsed.message, target)
  await s.settle(() => seen.join('').split('REGISTER sip').length === 3)
  t.equal(accepted, 1, 'one connection for both')
  await t.rejects(s.listener.send(parsed.message, { ...target, host: 'example.com' }), /IP address/)
})
