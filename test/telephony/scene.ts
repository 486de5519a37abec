import { createLogger, loadConfig } from '../../core/index.js'
import { startEngine, type Engine } from '../../api/index.js'
import { startTelephony } from '../../api/calls/telephony.js'
import { resample } from '../../engine/audio/index.js'
import { startDeepgramStandIn, type DeepgramStandIn } from '../../engine/pipeline/providers/stand-ins/index.js'
import { type DtmfDigit, dtmfPackets, encodeMulaw, type TimerClock } from '../../sip/index.js'
import type { TelephonyService } from '../../telephony/index.js'
import { CALL_GRAPH, VOICE_CONFIG, W } from '../api/calls/fixtures.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { speak } from '../helpers/speech.js'
import { type PcapRtpPacket, writeRtpPcapPackets } from '../helpers/sipp.js'
import { expectStatus, newOwner, type Actor } from '../helpers/tenancy-fixtures.js'

export interface PhoneScene {
  a: TestApp
  owner: Actor
  engine: Engine
  telephony: TelephonyService
  dg: DeepgramStandIn
  /** host:port of our SIP listener, for SIPp. */
  target: string
  /** A published agent (greets, asks a name) with Deepgram STT (the stand-in) and espeak TTS; a trunk; a number answered by it. */
  line(o?: {
    trunk?: Record<string, unknown>
    number?: string
    publish?: boolean
    definition?: unknown
  }): Promise<{ workflowId: string; trunkId: string; number: string }>
  /** Polls GET /calls until a phone call is finished (or the deadline). */
  finishedCalls(count: number, deadlineMs?: number): Promise<Array<Record<string, any>>> // eslint-disable-line @typescript-eslint/no-explicit-any
}

let numberSeq = 0

/** The real app, engine and SIP listener on loopback (UDP+TCP, free ports), a Deepgram stand-in for STT. */
export async function phoneScene(
  t: { teardown(fn: () => unknown): void },
  env: Record<string, string> = {},
  o: { timers?: TimerClock } = {},
): Promise<PhoneScene> {
  const dg = await startDeepgramStandIn({ apiKey: 'dg-key', finalLatencyMs: 100 })
  t.teardown(() => dg.close())
  const rtpMin = 20_000 + 2 * Math.floor(Math.random() * 10_000)
  const fullEnv = {
    OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
    OZAN_RTP_PORT_MIN: String(rtpMin),
    OZAN_RTP_PORT_MAX: String(rtpMin + 200),
    OZAN_SIP_PUBLIC_ADDRESS: '127.0.0.1',
    ...env,
  }
  const a = await startTestApp({ env: fullEnv })
  const config = loadConfig({ ...fullEnv, OZAN_ENGINE_SOCKET: 'ws' })
  const logger = createLogger(process.env['OZAN_TEST_LOG'] === '1' ? 'debug' : 'silent')
  const engine = await startEngine({ services: a.services, config, logger, host: '127.0.0.1', port: 0 })
  const telephony = (await startTelephony({ services: a.services, config, engine, logger, host: '127.0.0.1', port: 0, ...(o.timers && { timers: o.timers }) }))!
  t.teardown(async () => {
    await engine.close()
    await telephony.close()
    await a.close()
  })
  const owner = await newOwner(a)
  const body = { provider: 'deepgram', fields: { api_key: 'dg-key', base_url: dg.url.replace(/^ws/, 'http') } }
  expectStatus(await a.request('PUT', '/api/v1/credentials', { token: owner.token, body }), 200, 'store deepgram credential')
  return {
    a,
    owner,
    engine,
    telephony,
    dg,
    target: `127.0.0.1:${telephony.port}`,
    async line(o = {}) {
      const workflowId = expectStatus(await a.request('POST', W, { token: owner.token, body: { name: 'Phone agent' } }), 201, 'agent').id as string
      expectStatus(await a.request('PUT', `${W}/${workflowId}/definition`, { token: owner.token, body: o.definition ?? CALL_GRAPH }), 200, 'definition')
      expectStatus(await a.request('PUT', `${W}/${workflowId}/config`, { token: owner.token, body: VOICE_CONFIG }), 200, 'config')
      if (o.publish !== false) expectStatus(await a.request('POST', `${W}/${workflowId}/publish`, { token: owner.token }), 200, 'publish')
      const trunkBody = { name: 'Loopback carrier', host: '127.0.0.1', allowed_sources: ['127.0.0.1'], ...o.trunk }
      const trunkId = expectStatus(await a.request('POST', '/api/v1/sip-trunks', { token: owner.token, body: trunkBody }), 201, 'trunk').id as string
      const number = o.number ?? `+1555010${String(1000 + (++numberSeq % 9000))}`
      expectStatus(
        await a.request('POST', '/api/v1/phone-numbers', { token: owner.token, body: { number, trunk_id: trunkId, workflow_uuid: workflowId } }),
        201,
        'number',
      )
      return { workflowId, trunkId, number }
    },
    async finishedCalls(count, deadlineMs = 20_000) {
      const until = Date.now() + deadlineMs
      for (;;) {
        const page = expectStatus(await a.request('GET', '/api/v1/calls?channel=calls&limit=50', { token: owner.token }), 200, 'list calls')
        const done = page.items.filter((c: { status: string }) => c.status === 'completed' || c.status === 'failed')
        if (done.length >= count || Date.now() > until) return done
        await new Promise((r) => setTimeout(r, 100))
      }
    },
  }
}

/** `text` said by espeak-ng as µ-law packets of `ptimeMs` (20 unless said) in a pcap for SIPp, with 300 ms of silence after. */
export async function speechPcap(text: string, ptimeMs = 20): Promise<Buffer> {
  const pcm16k = await speak(text, 'en')
  const pcm8k = resample(pcm16k, 16_000, 8000)
  const padded = new Int16Array(pcm8k.length + 2400)
  padded.set(pcm8k)
  const samples = ptimeMs * 8
  const packets: PcapRtpPacket[] = []
  for (let at = 0; at + samples <= padded.length; at += samples) {
    const payload = new Uint8Array(samples)
    encodeMulaw(padded.subarray(at, at + samples), payload)
    packets.push({ atMs: at / 8, payloadType: 0, marker: at === 0, timestamp: at, payload })
  }
  return writeRtpPcapPackets(packets)
}

/** Key presses as RFC 4733 events (payload type 101) in a pcap for SIPp: each key 100 ms, 400 ms apart. */
export function dtmfPcap(keys: string): Buffer {
  const packets: PcapRtpPacket[] = []
  ;[...keys].forEach((key, i) => {
    const startMs = i * 400
    for (const p of dtmfPackets(key as DtmfDigit, 8000 + startMs * 8)) {
      packets.push({ atMs: startMs + p.atMs, payloadType: 101, marker: p.marker, timestamp: p.timestamp, payload: p.payload })
    }
  })
  return writeRtpPcapPackets(packets.sort((a, b) => a.atMs - b.atMs))
}
