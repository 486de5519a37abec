// RTP port pairs (RFC 3550 §11): even RTP port, RTCP on the next; bounded; busy ports skipped.
import dgram from 'node:dgram'
import t from 'tap'
import { PortsExhausted, RtpPortPool } from '../../../telephony/media/index.js'
import { freePortRange } from './media-helpers.js'

t.test('allocate MUST bind an even RTP port and RTCP on port + 1, both within the range', async (t) => {
  const base = await freePortRange(8)
  const pool = new RtpPortPool({ minPort: base, maxPort: base + 7 })
  const endpoint = await pool.allocate('127.0.0.1')
  t.teardown(() => pool.release(endpoint))
  t.equal(endpoint.rtpPort % 2, 0)
  t.equal(endpoint.rtcpPort, endpoint.rtpPort + 1)
  t.ok(endpoint.rtpPort >= base && endpoint.rtcpPort <= base + 7)
  t.equal(endpoint.rtp.address().port, endpoint.rtpPort)
  t.equal(endpoint.rtcp.address().port, endpoint.rtcpPort)
  t.equal(pool.inUse, 1)
})

t.test('an odd minimum starts at the next even port; a range without a pair is refused', async (t) => {
  t.equal(new RtpPortPool({ minPort: 10_001, maxPort: 10_004 }).capacity, 1)
  t.equal(new RtpPortPool({ minPort: 10_000, maxPort: 10_003 }).capacity, 2)
  t.throws(() => new RtpPortPool({ minPort: 10_001, maxPort: 10_002 }), RangeError)
  t.throws(() => new RtpPortPool({ minPort: 0, maxPort: 70_000 }), RangeError)
})

t.test('with every pair held, allocate MUST throw the typed PortsExhausted; a released pair is allocatable again', async (t) => {
  const base = await freePortRange(4)
  const pool = new RtpPortPool({ minPort: base, maxPort: base + 3, random: () => 0 })
  const a = await pool.allocate('127.0.0.1')
  const b = await pool.allocate('127.0.0.1')
  t.same([a.rtpPort, b.rtpPort], [base, base + 2])
  const err = await pool.allocate('127.0.0.1').catch((e: unknown) => e)
  t.ok(err instanceof PortsExhausted, 'typed error')
  t.equal((err as PortsExhausted).code, 'ports_exhausted')
  pool.release(a)
  pool.release(a) // idempotent
  t.equal(pool.inUse, 1)
  const c = await pool.allocate('127.0.0.1')
  t.equal(c.rtpPort, base, 'the freed pair')
  pool.release(b)
  pool.release(c)
})

t.test('a pair whose RTP or RTCP port another socket holds MUST be skipped', async (t) => {
  const base = await freePortRange(6)
  const squatter = dgram.createSocket('udp4')
  await new Promise<void>((resolve) => squatter.bind(base + 1, '127.0.0.1', resolve)) // the first pair's RTCP port
  t.teardown(() => squatter.close())
  const pool = new RtpPortPool({ minPort: base, maxPort: base + 5, random: () => 0 })
  const endpoint = await pool.allocate('127.0.0.1')
  t.equal(endpoint.rtpPort, base + 2)
  t.equal(pool.skippedBusy, 1)
  // The first pair's RTP socket, bound before its RTCP port failed, was closed again.
  const probe = dgram.createSocket('udp4')
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject)
    probe.bind(base, '127.0.0.1', resolve)
  })
  probe.close()
  pool.release(endpoint)
})

t.test('all pairs busy in other processes MUST also end in PortsExhausted, not a loop', async (t) => {
  const base = await freePortRange(2)
  const squatter = dgram.createSocket('udp4')
  await new Promise<void>((resolve) => squatter.bind(base, '127.0.0.1', resolve))
  t.teardown(() => squatter.close())
  const pool = new RtpPortPool({ minPort: base, maxPort: base + 1 })
  await t.rejects(pool.allocate('127.0.0.1'), PortsExhausted)
})

t.test('the first pair MUST be taken from a random place in the range, then round-robin', async (t) => {
  const pool = new RtpPortPool({ minPort: 10_000, maxPort: 20_000, random: () => 0.5 })
  t.equal(pool.capacity, 5000)
  // Reaches into the private cursor only to check the start without binding 2,500 pairs.
  t.equal((pool as unknown as { cursor: number }).cursor, 2500)
})
