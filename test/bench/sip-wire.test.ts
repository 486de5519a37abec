import t from 'tap'
import { readSipPcap, rtpJitter } from '../../bench/sip/wire.js'

// A pcap (EN10MB, as tcpdump writes for lo) of UDP datagrams, each at `ms` on the capture's clock.
function pcap(datagrams: Array<{ ms: number; src: number; dst: number; data: Buffer }>): Buffer {
  const head = Buffer.alloc(24)
  head.writeUInt32LE(0xa1b2c3d4, 0)
  head.writeUInt16LE(2, 4)
  head.writeUInt16LE(4, 6)
  head.writeUInt32LE(262144, 16)
  head.writeUInt32LE(1, 20)
  const recs = datagrams.map(({ ms, src, dst, data }) => {
    const eth = Buffer.alloc(14)
    eth.writeUInt16BE(0x0800, 12)
    const ip = Buffer.alloc(20)
    ip[0] = 0x45
    ip.writeUInt16BE(20 + 8 + data.length, 2)
    ip[9] = 17
    const udp = Buffer.alloc(8)
    udp.writeUInt16BE(src, 0)
    udp.writeUInt16BE(dst, 2)
    udp.writeUInt16BE(8 + data.length, 4)
    const pkt = Buffer.concat([eth, ip, udp, data])
    const rec = Buffer.alloc(16)
    rec.writeUInt32LE(Math.floor(ms / 1000), 0)
    rec.writeUInt32LE(Math.round((ms % 1000) * 1000), 4)
    rec.writeUInt32LE(pkt.length, 8)
    rec.writeUInt32LE(pkt.length, 12)
    return Buffer.concat([rec, pkt])
  })
  return Buffer.concat([head, ...recs])
}

const SIP = 5080
const invite = (callId: string) => Buffer.from(`INVITE sip:+1555@127.0.0.1 SIP/2.0\r\nCall-ID: ${callId}\r\nCSeq: 1 INVITE\r\n\r\n`)
const response = (status: string, callId: string, method = 'INVITE') => Buffer.from(`SIP/2.0 ${status}\r\ni: ${callId}\r\nCSeq: 1 ${method}\r\n\r\n`)
const rtp = (pt = 0) => {
  const b = Buffer.alloc(12 + 160)
  b[0] = 0x80
  b[1] = pt
  return b
}

t.test('call setup is the 200 to an INVITE leaving the listener minus the INVITE’s first arrival', async (t) => {
  const w = readSipPcap(
    pcap([
      { ms: 1000, src: 6000, dst: SIP, data: invite('a') },
      { ms: 1001, src: SIP, dst: 6000, data: response('100 Trying', 'a') },
      // A retransmitted INVITE does not restart the clock.
      { ms: 1500, src: 6000, dst: SIP, data: invite('a') },
      { ms: 1520, src: SIP, dst: 6000, data: response('200 OK', 'a') },
      // A retransmitted 200 is not a second answer.
      { ms: 2020, src: SIP, dst: 6000, data: response('200 OK', 'a') },
      { ms: 3000, src: 6000, dst: SIP, data: invite('b') },
      { ms: 3007, src: SIP, dst: 6000, data: response('200 OK', 'b') },
      // A 200 to BYE is not setup; an INVITE never answered is counted as such.
      { ms: 4000, src: SIP, dst: 6000, data: response('200 OK', 'c', 'BYE') },
      { ms: 5000, src: 6000, dst: SIP, data: invite('d') },
      { ms: 5001, src: SIP, dst: 6000, data: response('486 Busy Here', 'd') },
    ]),
    SIP,
  )
  t.same(
    w.setupMs.map((x) => Math.round(x)),
    [520, 7],
  )
  t.equal(w.unanswered, 1)
})

t.test('RTP send jitter: audio packets per engine port, telephone events and RTCP left out, judged as web frames', async (t) => {
  const packets: Array<{ ms: number; src: number; dst: number; data: Buffer }> = []
  // Port 30000 on time; port 30002 with every 10th packet 12 ms late; an RFC 4733 event and an RTCP packet mixed in.
  for (let i = 0; i < 100; i++) {
    packets.push({ ms: 10_000 + i * 20, src: 30000, dst: 40000, data: rtp() })
    packets.push({ ms: 10_000 + i * 20 + (i % 10 === 5 ? 12 : 0), src: 30002, dst: 40002, data: rtp() })
  }
  packets.push({ ms: 10_001, src: 30000, dst: 40000, data: rtp(101) })
  const rtcp = Buffer.alloc(28)
  rtcp[0] = 0x80
  rtcp[1] = 200
  packets.push({ ms: 10_003, src: 30001, dst: 40001, data: rtcp })
  packets.sort((a, b) => a.ms - b.ms)
  const w = readSipPcap(pcap(packets), SIP)
  t.same([...w.rtp.keys()].sort(), [30000, 30002])
  t.equal(w.rtp.get(30000)!.length, 100)
  const onTime = rtpJitter(new Map([[30000, w.rtp.get(30000)!]]))
  t.ok(Math.max(...onTime) < 0.01, 'a stream on its 20 ms schedule has no jitter')
  const late = rtpJitter(new Map([[30002, w.rtp.get(30002)!]]))
  t.equal(Math.round(Math.max(...late)), 12, 'a late packet reads as its lateness')
  t.equal(rtpJitter(w.rtp, 10_000 + 50 * 20, Infinity).length, 100, 'the window keeps only its packets')
})
