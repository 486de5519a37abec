/**
 * The sip-calls bench's measuring instrument: tcpdump on loopback captures the SIP listener's
 * traffic both ways and every RTP packet the engine sends, and the capture is read here, with
 * the kernel's timestamps:
 * - call setup = the 200 OK to an INVITE leaving the listener − that INVITE's first arrival (a
 *   retransmitted INVITE does not restart the clock), per Call-ID;
 * - RTP send jitter = each engine RTP stream's packets (per source port) through the web calls'
 *   stretch jitter (bench/voice/caller.ts stretchJitter: 20 ms schedule anchored on the lower
 *   envelope, stretches split at 500 ms gaps), so phone and web figures are judged alike.
 * Needs tcpdump and root, as the voice bench's wire capture (bench/voice/wire.ts).
 */
import fs from 'node:fs'
import { FRAME_BYTES, stretchJitter } from '../voice/caller.js'
import { ipv4Packets, startTcpdump } from '../voice/wire.js'

export interface SipCapture {
  stop(): Promise<SipWire>
}

export interface SipWire {
  /** INVITE → 200 OK per answered call (ms). */
  setupMs: number[]
  /** INVITEs seen that got no 200 in the capture. */
  unanswered: number
  /** Per engine RTP source port: each audio packet's capture time (ms). */
  rtp: Map<number, number[]>
}

export async function startSipCapture(o: { sipPort: number; rtpMin: number; rtpMax: number; file: string }): Promise<SipCapture> {
  // -B: a larger kernel buffer, so bursts of packets at high call counts are not dropped.
  const tcpdump = await startTcpdump(`udp and (port ${o.sipPort} or src portrange ${o.rtpMin}-${o.rtpMax})`, o.file, ['-B', '16384'])
  return {
    async stop() {
      const err = await tcpdump.stop()
      const dropped = /(\d+) packets dropped by kernel/.exec(err)
      if (dropped && Number(dropped[1]) > 0) throw new Error(`tcpdump lost ${dropped[1]} packets: the capture is incomplete`)
      const wire = readSipPcap(fs.readFileSync(o.file), o.sipPort)
      if (!process.env.BENCH_WIRE_KEEP) fs.rmSync(o.file, { force: true })
      return wire
    },
  }
}

/** UDP datagrams of a pcap (voice/wire.ts ipv4Packets), with their capture time in ms. */
export function* udpDatagrams(b: Buffer): Generator<{ at: number; src: number; dst: number; payload: Buffer }> {
  for (const { at, pkt, ipAt } of ipv4Packets(b)) {
    if (pkt[ipAt + 9] !== 17) continue
    const udp = ipAt + (pkt[ipAt]! & 15) * 4
    if (pkt.length < udp + 8) continue
    const end = Math.min(pkt.length, udp + pkt.readUInt16BE(udp + 4))
    yield { at, src: pkt.readUInt16BE(udp), dst: pkt.readUInt16BE(udp + 2), payload: pkt.subarray(udp + 8, end) }
  }
}

const callIdOf = (text: string): string | null => /^(?:Call-ID|i)[ \t]*:[ \t]*(\S+)/im.exec(text)?.[1] ?? null
const cseqMethodOf = (text: string): string | null => /^CSeq[ \t]*:[ \t]*\d+[ \t]+(\w+)/im.exec(text)?.[1] ?? null

/** Reads a capture made by startSipCapture (pure: tested on built pcaps). */
export function readSipPcap(b: Buffer, sipPort: number): SipWire {
  const invites = new Map<string, number>()
  const answered = new Map<string, number>()
  const rtp = new Map<number, number[]>()
  for (const d of udpDatagrams(b)) {
    if (d.dst === sipPort || d.src === sipPort) {
      const text = d.payload.toString('latin1')
      const callId = callIdOf(text)
      if (!callId) continue
      if (d.dst === sipPort && text.startsWith('INVITE ')) {
        if (!invites.has(callId)) invites.set(callId, d.at)
      } else if (d.src === sipPort && text.startsWith('SIP/2.0 200') && cseqMethodOf(text) === 'INVITE') {
        if (!answered.has(callId)) answered.set(callId, d.at)
      }
      continue
    }
    // RTP version 2, an audio payload type (telephone events and RTCP are not paced frames).
    const p = d.payload
    if (p.length < 12 || p[0]! >> 6 !== 2 || (p[1]! & 0x7f) > 34) continue
    const list = rtp.get(d.src) ?? []
    list.push(d.at)
    rtp.set(d.src, list)
  }
  const setupMs: number[] = []
  let unanswered = 0
  for (const [callId, at] of invites) {
    const ok = answered.get(callId)
    if (ok === undefined) unanswered++
    else setupMs.push(ok - at)
  }
  return { setupMs, unanswered, rtp }
}

/** Every stream's jitter (ms per packet) between `from` and `to` on the capture's clock. */
export function rtpJitter(rtp: Map<number, number[]>, from = -Infinity, to = Infinity): number[] {
  return [...rtp.values()].flatMap((ats) =>
    stretchJitter(
      ats.map((at) => ({ at, bytes: FRAME_BYTES })),
      from,
      to,
    ),
  )
}
