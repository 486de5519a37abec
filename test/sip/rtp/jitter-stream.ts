// Test helper for the jitter buffer: a seeded stream of G.711 packets with chosen arrival times,
// played against a fake 20 ms pull clock. Every payload is distinct random µ-law, so each pulled
// frame can be traced back to the packet it came from.
import { decodeMulaw, type JitterBuffer, type JitterFrameKind, type JitterPacket } from '../../../sip/rtp/index.js'

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

export interface StreamPacket extends JitterPacket {
  readonly index: number
  readonly sequenceNumber: number
  readonly arrivalMs: number
}

export interface StreamOptions {
  readonly count: number
  readonly ssrc?: number
  readonly firstSeq?: number
  readonly firstTs?: number
  /** Arrival of packet i, sent at i × 20 ms; defaults to 5 ms of transit. */
  readonly arrival?: (index: number) => number
  readonly seed?: number
}

export function makeStream(options: StreamOptions): StreamPacket[] {
  const random = seededRandom(options.seed ?? 1)
  const arrival = options.arrival ?? ((i: number) => i * 20 + 5)
  return Array.from({ length: options.count }, (_, index) => {
    const payload = new Uint8Array(160)
    // Codes 0x00-0x3F and 0x80-0xBF only: loud (|x| > 2000), so no frame ever reads as silence.
    for (let j = 0; j < 160; j++) payload[j] = Math.floor(random() * 64) | (random() < 0.5 ? 0x80 : 0)
    return {
      index,
      ssrc: options.ssrc ?? 0x5eed,
      sequenceNumber: ((options.firstSeq ?? 1000) + index) & 0xffff,
      timestamp: ((options.firstTs ?? 160_000) + 160 * index) >>> 0,
      marker: index === 0,
      payloadType: 0,
      payload,
      arrivalMs: arrival(index),
    }
  })
}

export interface PulledFrame {
  readonly atMs: number
  readonly kind: JitterFrameKind
  /** The packet whose audio this frame is, bit for bit; undefined for concealment or silence. */
  readonly index: number | undefined
}

const key = (pcm: Int16Array) => pcm.join(',')

/** Pushes each packet at its arrival time and pulls every 20 ms from `firstPullMs`, `pulls` times. */
export function play(buffer: JitterBuffer, packets: readonly StreamPacket[], firstPullMs: number, pulls: number): PulledFrame[] {
  const byAudio = new Map<string, number>()
  for (const p of packets) {
    const pcm = new Int16Array(160)
    decodeMulaw(p.payload, pcm)
    byAudio.set(key(pcm), p.index)
  }
  const queue = [...packets].sort((a, b) => a.arrivalMs - b.arrivalMs)
  const frames: PulledFrame[] = []
  let next = 0
  for (let k = 0; k < pulls; k++) {
    const atMs = firstPullMs + 20 * k
    while (next < queue.length && queue[next]!.arrivalMs <= atMs) {
      buffer.push(queue[next]!, queue[next]!.arrivalMs)
      next++
    }
    const frame = buffer.pull(atMs)
    const index = frame.kind === 'audio' ? byAudio.get(key(frame.pcm)) : undefined
    if (frame.kind === 'audio' && index === undefined) throw new Error('audio that no packet carried')
    frames.push({ atMs, kind: frame.kind, index })
  }
  return frames
}

export function audioIndexes(frames: readonly PulledFrame[]): number[] {
  return frames.filter((f) => f.kind === 'audio').map((f) => f.index!)
}
