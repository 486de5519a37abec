/**
 * A simulated caller on the engine's web-call socket (docs/protocol.md, v1): it sends its
 * microphone as PCM16LE mono 16 kHz in 20 ms frames in real time — speech when it has something to
 * say, silence otherwise, as a real microphone does — and records, on this process's
 * performance.now(), when each utterance's first and last samples were sent, when each agent audio
 * message arrived (and its size), and every JSON event.
 *
 * Frames are scheduled drift-free (frame i at start + i·20 ms) by one shared FramePacer, so a
 * hundred callers cost one timer, not a hundred.
 */
import { performance } from 'node:perf_hooks'
import WebSocket from 'ws'
import { jitterMs } from './metrics.js'

export const FRAME_MS = 20
export const FRAME_SAMPLES = 320
export const FRAME_BYTES = FRAME_SAMPLES * 2
/** How often the pacer looks for due frames: a frame leaves at most this late (plus loop lag). */
const PACER_TICK_MS = 5

export type ServerEvent = { type: string; [k: string]: unknown }

export interface SentUtterance {
  label: string
  /** The first sample of speech was sent. */
  speechOnsetAt: number
  /** The last sample of speech was sent. */
  speechEndAt: number
}

export interface AgentAudio {
  at: number
  bytes: number
}

export interface CallerTimeline {
  openedAt: number
  utterances: SentUtterance[]
  audio: AgentAudio[]
  events: Array<{ at: number; event: ServerEvent }>
  closed: { at: number; code: number } | null
  /** The socket's error, if it had one (a 1006 close says no more). */
  error?: string
}

/** Frames of room noise each caller cycles through (1 s), from its own offset. */
const ROOM_FRAMES = 50
let callersMade = 0

/**
 * One timer for every caller in the process, and the room they call from: `roomDbfs` is the level
 * of the white noise under every frame (speech or not), as a microphone never sends digital zeros;
 * null sends exact silence between words. The default, −80 dBFS, is a quiet room through a
 * browser's noise suppression.
 */
export class FramePacer {
  private readonly callers = new Set<Caller>()
  private timer: NodeJS.Timeout | null = null
  readonly room: Int16Array[]

  /**
   * `roomNoise`, when given, is the room instead of the white noise: a loop of any length (whole
   * frames of it are used) at the level `roomDbfs` names, e.g. the pink or brown noise of the
   * conversation-quality bench.
   */
  constructor(
    readonly roomDbfs: number | null = -80,
    roomNoise?: Int16Array,
  ) {
    if (roomNoise) {
      const frames = Math.floor(roomNoise.length / FRAME_SAMPLES)
      if (frames < 1) throw new RangeError(`room noise needs at least one ${FRAME_MS} ms frame, got ${roomNoise.length} samples`)
      this.room = Array.from({ length: frames }, (_, i) => roomNoise.slice(i * FRAME_SAMPLES, (i + 1) * FRAME_SAMPLES))
      return
    }
    let s = 0x9e3779b9
    const amplitude = roomDbfs === null ? 0 : 32768 * 10 ** (roomDbfs / 20) * Math.sqrt(3) // uniform: RMS = a/√3
    this.room = Array.from({ length: ROOM_FRAMES }, () =>
      Int16Array.from({ length: FRAME_SAMPLES }, () => {
        s ^= s << 13
        s ^= s >>> 17
        s ^= s << 5
        return Math.round(((s >>> 0) / 0xffffffff) * 2 * amplitude - amplitude)
      }),
    )
  }

  add(c: Caller): void {
    this.callers.add(c)
    this.timer ??= setInterval(() => {
      const now = performance.now()
      for (const x of this.callers) x.pump(now)
    }, PACER_TICK_MS)
  }

  remove(c: Caller): void {
    this.callers.delete(c)
    if (this.callers.size === 0 && this.timer) {
      clearInterval(this.timer)
      this.timer = null
    }
  }
}

interface Queued {
  label: string
  pcm: Int16Array
  at: number
  onsetAt: number | null
  done: (u: SentUtterance) => void
}

export class Caller {
  readonly timeline: CallerTimeline
  private readonly queue: Queued[] = []
  private sentFrames = 0
  /** Where in the room's noise this caller starts, so callers do not send identical frames. */
  private readonly roomOffset = (callersMade++ * 7) % ROOM_FRAMES
  private startAt = 0
  private waiters: Array<() => void> = []
  private readonly closedP: Promise<{ code: number }>

  private constructor(
    private readonly ws: WebSocket,
    private readonly pacer: FramePacer,
  ) {
    this.timeline = { openedAt: performance.now(), utterances: [], audio: [], events: [], closed: null }
    ws.binaryType = 'nodebuffer'
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const at = performance.now()
      if (isBinary) this.timeline.audio.push({ at, bytes: data.byteLength })
      else this.timeline.events.push({ at, event: JSON.parse(data.toString('utf8')) as ServerEvent })
      this.wake()
    })
    ws.on('error', (err: Error) => (this.timeline.error ??= err.message))
    this.closedP = new Promise((resolve) =>
      ws.once('close', (code: number) => {
        this.timeline.closed = { at: performance.now(), code }
        pacer.remove(this)
        this.wake()
        resolve({ code })
      }),
    )
  }

  /**
   * Opens the socket (the URL holds the token: it is never logged) and waits for `hello`; a close
   * before it is a refusal (protocol §2) and rejects with its code.
   */
  static async connect(wsUrl: string, pacer: FramePacer, timeoutMs = 10_000): Promise<Caller> {
    const ws = new WebSocket(wsUrl, { perMessageDeflate: false })
    const c = new Caller(ws, pacer)
    try {
      await c.until(() => c.timeline.events.some((e) => e.event.type === 'hello'), timeoutMs, 'hello')
    } catch (err) {
      ws.terminate()
      throw err
    }
    c.startAt = performance.now()
    pacer.add(c)
    return c
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN
  }

  /** Queues speech after what is already queued; resolves once its last sample was sent. */
  say(pcm: Int16Array, label: string): Promise<SentUtterance> {
    return new Promise((done) => this.queue.push({ label, pcm, at: 0, onsetAt: null, done }))
  }

  /** Sends every frame due by `now` (start + i·20 ms), speech from the queue or silence. */
  pump(now: number): void {
    const due = Math.floor((now - this.startAt) / FRAME_MS) + 1
    while (this.sentFrames < due && this.open) {
      this.ws.send(this.nextFrame())
      this.sentFrames++
      // Stamped after the send call: the instant the bytes went to the socket.
      this.afterSend(performance.now())
    }
  }

  private nextFrame(): Buffer {
    const room = this.pacer.room[(this.roomOffset + this.sentFrames) % this.pacer.room.length]!
    const head = this.queue[0]
    const frame = new Int16Array(FRAME_SAMPLES)
    if (head) {
      const piece = head.pcm.subarray(head.at, head.at + FRAME_SAMPLES)
      for (let i = 0; i < FRAME_SAMPLES; i++) frame[i] = Math.max(-32768, Math.min(32767, (piece[i] ?? 0) + room[i]!))
    } else frame.set(room)
    // PCM16LE on the wire: these benches run on little-endian hosts (x86, arm64).
    return Buffer.from(frame.buffer, 0, FRAME_BYTES)
  }

  private afterSend(at: number): void {
    const head = this.queue[0]
    if (!head) return
    head.onsetAt ??= at
    head.at += FRAME_SAMPLES
    if (head.at < head.pcm.length) return
    this.queue.shift()
    const u = { label: head.label, speechOnsetAt: head.onsetAt, speechEndAt: at }
    this.timeline.utterances.push(u)
    head.done(u)
  }

  /** Resolves when `cond()` holds (checked on every message and on a 50 ms poll); rejects after timeoutMs. */
  until(cond: () => boolean, timeoutMs: number, what = 'condition'): Promise<void> {
    if (cond()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const check = () => {
        if (cond()) finish()
        else if (this.timeline.closed && !cond())
          finish(new Error(`socket closed (${this.timeline.closed.code}${this.timeline.error ? `, ${this.timeline.error}` : ''}) while waiting for ${what}`))
        else this.waiters.push(check)
      }
      const poll = setInterval(() => {
        if (cond()) finish()
      }, 50)
      const timer = setTimeout(() => finish(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs)
      let settled = false
      const finish = (err?: Error) => {
        if (settled) return
        settled = true
        clearInterval(poll)
        clearTimeout(timer)
        if (err) reject(err)
        else resolve()
      }
      this.waiters.push(check)
    })
  }

  /** The first event matching `pred` at or after index `from` of timeline.events. */
  async event(pred: (e: ServerEvent) => boolean, timeoutMs: number, from = 0, what = 'event'): Promise<{ at: number; event: ServerEvent; index: number }> {
    let found = -1
    await this.until(
      () => {
        const ev = this.timeline.events
        for (let i = Math.max(from, 0); i < ev.length; i++) if (pred(ev[i]!.event)) return (found = i) >= 0
        return false
      },
      timeoutMs,
      what,
    )
    return { ...this.timeline.events[found]!, index: found }
  }

  /** Arrival time of the last agent audio message, or null before any. */
  lastAudioAt(): number | null {
    return this.timeline.audio.at(-1)?.at ?? null
  }

  /** Drops agent-audio arrivals before `t` (a long capacity run keeps only what it still measures). */
  forgetAudioBefore(t: number): void {
    const a = this.timeline.audio
    let n = 0
    while (n < a.length && a[n]!.at < t) n++
    if (n) a.splice(0, n)
  }

  /** Agent audio (ms) received since `t`, counting bytes. */
  audioMsSince(t: number): number {
    let bytes = 0
    for (let i = this.timeline.audio.length - 1; i >= 0 && this.timeline.audio[i]!.at >= t; i--) bytes += this.timeline.audio[i]!.bytes
    return (bytes / FRAME_BYTES) * FRAME_MS
  }

  /** Hangs up (`stop`) and waits for the close; terminates if the engine does not close in time. */
  async hangUp(timeoutMs = 5000): Promise<number> {
    this.pacer.remove(this)
    if (this.open) this.ws.send(JSON.stringify({ type: 'stop' }))
    const timer = setTimeout(() => this.ws.terminate(), timeoutMs)
    const { code } = await this.closedP
    clearTimeout(timer)
    return code
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w()
  }
}

/** A gap in agent audio longer than this ends a stretch (a reply); shorter ones count as jitter. */
const STRETCH_GAP_MS = 500

/**
 * Lateness of every agent frame that arrived in [from, to] against its stretch's ideal 20 ms
 * schedule (metrics.ts jitterMs). A message of several frames delivers them all at its arrival.
 * The engine starts each stretch with a burst (its playout lead, 60 ms by default): those frames
 * are early on purpose, and as the schedule's anchor they would make the burst's first frames
 * look late by up to the lead, so a burst counts only by its last frame.
 */
export function windowJitter(tl: CallerTimeline, from: number, to: number): number[] {
  return stretchJitter(tl.audio, from, to)
}

/** windowJitter over any arrival log (the wire capture's too). */
export function stretchJitter(audio: AgentAudio[], from: number, to: number): number[] {
  const out: number[] = []
  let stretch: number[] = []
  let last = -Infinity
  const flush = () => {
    let start = 0
    while (start + 1 < stretch.length && stretch[start + 1]! - stretch[start]! < FRAME_MS / 4) start++
    out.push(...jitterMs(stretch.slice(start), FRAME_MS))
    stretch = []
  }
  for (const a of audio) {
    if (a.at < from || a.at > to) continue
    if (a.at - last > STRETCH_GAP_MS && stretch.length) flush()
    for (let f = 0; f < Math.max(1, Math.round(a.bytes / FRAME_BYTES)); f++) stretch.push(a.at)
    last = a.at
  }
  if (stretch.length) flush()
  return out
}

// Waiting on a caller's timeline.

export const isStatus = (s: string) => (e: { type: string; status?: unknown }) => e.type === 'status' && e.status === s
/** The first `listening` status after `t`: the agent finished (or dropped) what it was saying. */
// These run on every message a caller receives, over timelines that grow all run: they look from
// the newest entry back (or bisect), never over the whole history.
export const listeningAfter = (c: Caller, t: number) =>
  c.until(
    () => {
      const ev = c.timeline.events
      for (let i = ev.length - 1; i >= 0 && ev[i]!.at > t; i--) if (isStatus('listening')(ev[i]!.event)) return true
      return false
    },
    30_000,
    'listening',
  )
/** Arrivals are in time order: the first one after `t` by bisection. */
export const firstAudioAfter = (tl: CallerTimeline, t: number): number | null => {
  const a = tl.audio
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]!.at > t) hi = mid
    else lo = mid + 1
  }
  return a[lo]?.at ?? null
}
