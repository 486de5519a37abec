// UdpOut: packets leave as they were at send() however the caller reuses its buffer, a slot is
// never rewritten while the socket may still read it, and a closed socket is an error reported,
// not thrown.
import dgram from 'node:dgram'
import { once } from 'node:events'
import t from 'tap'
import { literalLookup, UdpOut } from '../../../telephony/media/udp-out.js'

// With literalLookup the socket may be listening before bind() returns: wait through its callback.
const bound = (): Promise<dgram.Socket> =>
  new Promise((resolve) => {
    const socket = dgram.createSocket({ type: 'udp4', lookup: literalLookup as never })
    socket.bind(0, '127.0.0.1', () => resolve(socket))
  })

t.test('every packet arrives as it was when sent, whatever its length and however the buffer is reused', async (t) => {
  const [tx, rx] = await Promise.all([bound(), bound()])
  t.teardown(() => (tx.close(), rx.close()))
  const errors: Error[] = []
  const out = new UdpOut(tx, (err) => errors.push(err))
  // Lengths change from packet to packet (20 ms, 40 ms, a telephone event, 10 ms), so a slot's
  // view of the last length must never carry the next packet.
  const lengths = [172, 332, 16, 92, 492, 12, 252]
  const got: Buffer[] = []
  rx.on('message', (msg) => got.push(msg))
  const scratch = new Uint8Array(492)
  const expected: Buffer[] = []
  // Three rounds over the 16 slots, each packet a length other than the slot's last one's.
  for (let i = 0; i < 48; i++) {
    const n = lengths[(i + Math.floor(i / 16)) % lengths.length]!
    scratch.fill(i + 1)
    scratch[0] = n & 0xff
    const packet = scratch.subarray(0, n)
    expected.push(Buffer.from(packet))
    out.send(packet, '127.0.0.1', rx.address().port)
    // The sender rewrites its buffer at once, as the RTP sender does for its next packet.
    scratch.fill(0xee)
    // The sends' callbacks (slots released) come on a later tick, as between two 20 ms ticks.
    if (i % 8 === 7) await new Promise((resolve) => setImmediate(resolve))
  }
  while (got.length < expected.length) await once(rx, 'message')
  t.same(
    got.map((b) => [...b]),
    expected.map((b) => [...b]),
  )
  t.equal(out.fallbacks, 0, 'every packet went through a slot')
  t.same(errors, [])
})

t.test('a slot the socket has not released is never rewritten: past 16 in flight, a packet gets its own buffer', async (t) => {
  // A socket whose sends stay pending (libuv holding them while the kernel queue is full).
  const pending: Array<{ buf: Buffer; copy: Buffer; done: (err: Error | null) => void }> = []
  const socket = {
    send(buf: Buffer, _port: number, _address: string, done: (err: Error | null) => void) {
      pending.push({ buf, copy: Buffer.from(buf), done })
    },
  } as unknown as dgram.Socket
  const out = new UdpOut(socket, () => {})
  for (let i = 0; i < 20; i++) out.send(new Uint8Array(172).fill(i), '127.0.0.1', 4000)
  t.equal(out.fallbacks, 4, 'the 17th to 20th packets found every slot held')
  t.ok(
    pending.every((p) => p.buf.equals(p.copy)),
    'no held buffer changed after its send',
  )
  // Slots come back as their sends complete, and are used again.
  for (const p of pending.splice(0, 16)) p.done(null)
  out.send(new Uint8Array(172).fill(99), '127.0.0.1', 4000)
  t.equal(out.fallbacks, 4, 'a released slot served the next packet')
  t.equal(pending.at(-1)!.buf[0], 99)
})

t.test('a send on a closed socket reports the error and throws nothing', async (t) => {
  const tx = await bound()
  tx.close()
  const errors: Error[] = []
  const out = new UdpOut(tx, (err) => errors.push(err))
  t.doesNotThrow(() => out.send(new Uint8Array(172), '127.0.0.1', 9))
  t.equal(errors.length, 1)
  t.match(errors[0], { code: 'ERR_SOCKET_DGRAM_NOT_RUNNING' })
})
