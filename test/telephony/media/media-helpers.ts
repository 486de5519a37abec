// Helpers for the media path's tests: negotiated media, tones and their measures, a recording
// TransportInput, signals, two pure sessions wired together, polling with a deadline, free ports.
import dgram from 'node:dgram'
import type { TransportInput } from '../../../engine/index.js'
import type { NegotiatedMedia } from '../../../sip/index.js'
import { type MediaChannel, RtpSession, type RtpSessionOptions } from '../../../telephony/media/index.js'

export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

export function negotiated(overrides: Partial<NegotiatedMedia> = {}): NegotiatedMedia {
  const remoteAddress = overrides.remoteAddress ?? '127.0.0.1'
  const remotePort = overrides.remotePort ?? 40_000
  return {
    mediaIndex: 0,
    remoteAddress,
    remoteAddressKind: 'ipv4',
    remotePort,
    rtcpAddress: remoteAddress,
    rtcpPort: remotePort + 1,
    rtcpMux: false,
    payloadType: 0,
    codec: 'PCMU',
    clockRateHz: 8000,
    dtmfPayloadType: 101,
    ptimeMs: 20,
    direction: 'sendrecv',
    onHold: false,
    ...overrides,
  }
}

/** 20 ms frames (160 samples at the line's 8 kHz: what the call writes) of a continuous sine. */
export function toneFrames(count: number, hz = 440, amplitude = 8000): Int16Array[] {
  return Array.from({ length: count }, (_, f) =>
    Int16Array.from({ length: 160 }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * (f * 160 + i)) / 8000))),
  )
}

export function concat(frames: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(frames.reduce((n, f) => n + f.length, 0))
  let at = 0
  for (const f of frames) {
    out.set(f, at)
    at += f.length
  }
  return out
}

/** Frequency by zero crossings (two per period). */
export function zeroCrossingHz(pcm: Int16Array, rateHz: number): number {
  let crossings = 0
  for (let i = 1; i < pcm.length; i++) if (pcm[i - 1]! < 0 !== pcm[i]! < 0) crossings++
  return (crossings / 2) * (rateHz / pcm.length)
}

export function rmsOf(pcm: Int16Array): number {
  let sum = 0
  for (const s of pcm) sum += s * s
  return Math.sqrt(sum / Math.max(1, pcm.length))
}

/** The samples from the first to the last one louder than `floor`. */
export function voiced(pcm: Int16Array, floor = 500): Int16Array {
  let first = pcm.findIndex((s) => Math.abs(s) > floor)
  if (first < 0) return new Int16Array(0)
  let last = pcm.length - 1
  while (Math.abs(pcm[last]!) <= floor) last--
  first = Math.min(first, last)
  return pcm.subarray(first, last + 1)
}

/** What the call would be handed: audio frames (with their rate) and control frames. */
export class RecordingInput implements TransportInput {
  readonly audioFrames: Int16Array[] = []
  readonly rates = new Set<number>()
  readonly frames: Parameters<TransportInput['frame']>[0][] = []
  audio(pcm: Int16Array, sampleRate: number): void {
    this.audioFrames.push(pcm)
    this.rates.add(sampleRate)
  }
  frame(frame: Parameters<TransportInput['frame']>[0]): void {
    this.frames.push(frame)
  }
  digits(): string {
    return this.frames.map((f) => (f.type === 'dtmf' ? f.digits : '')).join('')
  }
}

export function recordingSignals() {
  const ended: string[] = []
  const transfers: string[] = []
  return { ended, transfers, signals: { ended: (reason: string) => ended.push(reason), transfer: (target: string) => transfers.push(target) } }
}

export interface Sent {
  readonly channel: MediaChannel
  readonly bytes: Uint8Array
  readonly address: string
  readonly port: number
  /** When the packet should leave (rtp-sender.ts), and whether it is an RTP data packet the io may renumber. */
  readonly sendAtMs: number
  readonly sequenced: boolean
}

/** A pure session whose packets are copied into `sent`. */
export function capturingSession(options: Partial<RtpSessionOptions> = {}): { session: RtpSession; sent: Sent[] } {
  const sent: Sent[] = []
  const session = new RtpSession(
    (channel, bytes, address, port, sendAtMs, sequenced) => sent.push({ channel, bytes: bytes.slice(), address, port, sendAtMs, sequenced }),
    {
      random: seededRandom(7),
      ...options,
    },
  )
  return { session, sent }
}

/** Polls `done` every few ms until it holds or `deadlineMs` passes; returns whether it held. */
export async function waitFor(done: () => boolean, deadlineMs = 5000): Promise<boolean> {
  const until = Date.now() + deadlineMs
  while (!done()) {
    if (Date.now() > until) return false
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return true
}

async function bindable(port: number): Promise<boolean> {
  const socket = dgram.createSocket('udp4')
  const ok = await new Promise<boolean>((resolve) => {
    socket.once('error', () => resolve(false))
    socket.bind(port, '127.0.0.1', () => resolve(true))
  })
  socket.close()
  return ok
}

/** An even port from which `count` ports are free on 127.0.0.1 right now. */
export async function freePortRange(count: number, random = Math.random): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 30_000 + 2 * Math.floor(random() * 10_000)
    let free = true
    for (let p = base; p < base + count && free; p++) free = await bindable(p)
    if (free) return base
  }
  throw new Error('no free port range found')
}
