import dgram from 'node:dgram'
import { parseSipMessage, SipRequest, SipResponse } from '../../sip/index.js'

/**
 * A caller's network in a test: a SIP and RTP relay of the test's own between a caller (SIPp) and
 * our SIP listener. It rewrites the SDP of the INVITE and its answer so both sides send RTP through
 * it, and on the way from the caller to the engine drops a share of the packets and delays each by
 * a random 0…jitterMs (so they may arrive out of order), from a seeded generator.
 */
export interface ImpairingRelay {
  /** Where the caller sends its INVITE. */
  sipPort: number
  stats: { forwarded: number; dropped: number }
  close(): Promise<void>
}

/** Mulberry32: small, seeded, good enough to pick which packets a network loses. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

async function bound(): Promise<dgram.Socket> {
  const s = dgram.createSocket('udp4')
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()))
  return s
}

/** The SDP's media address and port, and the SDP pointed at the relay's RTP port instead. */
function redirect(body: Buffer, port: number): { body: Buffer; media: { host: string; port: number } | undefined } {
  const text = body.toString('utf8')
  const host = /^c=IN IP4 (\S+)/m.exec(text)?.[1]
  const mport = /^m=audio (\d+)/m.exec(text)?.[1]
  const media = host && mport ? { host, port: Number(mport) } : undefined
  return { body: Buffer.from(text.replace(/^c=IN IP4 \S+/gm, 'c=IN IP4 127.0.0.1').replace(/^m=audio \d+/m, `m=audio ${port}`)), media }
}

export async function startImpairingRelay(o: {
  target: { host: string; port: number }
  lossRate: number
  jitterMs: number
  seed: number
  /** Sees every RTP packet the engine sends to the caller (a test reading what the agent sends). */
  onEngineRtp?: (bytes: Buffer) => void
}): Promise<ImpairingRelay> {
  const sip = await bound()
  const rtp = await bound()
  const random = seeded(o.seed)
  const stats = { forwarded: 0, dropped: 0 }
  let caller: { host: string; port: number } | undefined
  let callerMedia: { host: string; port: number } | undefined
  let engineMedia: { host: string; port: number } | undefined
  const timers = new Set<NodeJS.Timeout>()
  const rtpPort = rtp.address().port
  const sipPort = sip.address().port

  sip.on('message', (bytes, from) => {
    const parsed = parseSipMessage(bytes)
    if (!parsed.ok) return
    const m = parsed.message
    if (m instanceof SipRequest) {
      caller = { host: from.address, port: from.port }
      const r = m.body.length ? redirect(m.body, rtpPort) : { body: m.body, media: undefined }
      if (r.media) callerMedia = r.media
      // The caller's branch, tagged: its retransmissions stay one transaction here too (a CANCEL too).
      const via = `SIP/2.0/UDP 127.0.0.1:${sipPort};branch=z9hG4bKrelay-${m.headers.via()[0]?.branch ?? 'none'}`
      const out = new SipRequest(m.method, m.uri, m.headers.prepend('Via', via), r.body)
      sip.send(out.serialize(), o.target.port, o.target.host)
    } else if (m instanceof SipResponse && caller) {
      const vias = m.headers.getAll('Via').slice(1)
      const r = m.body.length ? redirect(m.body, rtpPort) : { body: m.body, media: undefined }
      if (r.media) engineMedia = r.media
      const out = new SipResponse(m.status, m.reason, m.headers.set('Via', ...vias), r.body)
      sip.send(out.serialize(), caller.port, caller.host)
    }
  })

  rtp.on('message', (bytes, from) => {
    if (callerMedia && engineMedia && from.port === callerMedia.port) {
      // Caller → engine: the impaired direction.
      if (random() < o.lossRate) {
        stats.dropped++
        return
      }
      const timer = setTimeout(() => {
        timers.delete(timer)
        rtp.send(bytes, engineMedia!.port, engineMedia!.host)
        stats.forwarded++
      }, random() * o.jitterMs)
      timers.add(timer)
    } else if (callerMedia && engineMedia) {
      o.onEngineRtp?.(bytes)
      rtp.send(bytes, callerMedia.port, callerMedia.host)
    }
  })

  return {
    sipPort,
    stats,
    async close() {
      for (const t of timers) clearTimeout(t)
      await Promise.all([new Promise<void>((r) => sip.close(() => r())), new Promise<void>((r) => rtp.close(() => r()))])
    },
  }
}
