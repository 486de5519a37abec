/**
 * A call transport held in memory: what a test (or a bench) plays as the caller. It proves a
 * transport plugs into the call without the controller knowing: caller audio and control go in
 * through `say…`/`hangUp`, and everything the call sends out is kept to be read back.
 */
import { SAMPLE_RATE } from '../../audio/index.js'
import type { EndReason } from '../../server/protocol.js'
import type { ControlFrame } from '../frames.js'
import type { CallerEvent } from './commands.js'
import type { CallTransport, TransportInput } from './transport.js'

export interface MemoryTransportOptions {
  /** Caller audio rate handed to the call (the call resamples to 16 kHz, or to lineRate). */
  sampleRate?: number
  /** Act as a phone line at 8 kHz: the call hears and speaks at 8 kHz (transport.ts). */
  lineRate?: 8000
  /** Agent frames kept (the oldest go first); the count of all frames is kept regardless. */
  maxFramesKept?: number
}

export class MemoryTransport implements CallTransport {
  readonly name = 'memory'
  readonly lineRate?: 8000
  readonly events: CallerEvent[] = []
  /** Agent audio frames at lineRate (else 16 kHz), newest last (bounded by maxFramesKept). */
  readonly frames: Int16Array[] = []
  framesWritten = 0
  clears = 0
  endedWith: EndReason | null = null
  private input: TransportInput | null = null
  private readonly sampleRate: number
  private readonly maxFramesKept: number
  private gone = false

  constructor(o: MemoryTransportOptions = {}) {
    this.sampleRate = o.sampleRate ?? SAMPLE_RATE
    if (o.lineRate !== undefined) this.lineRate = o.lineRate
    this.maxFramesKept = o.maxFramesKept ?? 10_000
  }

  get closed(): boolean {
    return this.gone || this.endedWith !== null
  }

  attach(input: TransportInput): void {
    this.input = input
  }

  /** The caller's microphone: PCM16 at the transport's rate. */
  sendAudio(pcm: Int16Array): void {
    if (!this.closed) this.input?.audio(pcm, this.sampleRate)
  }

  control(frame: ControlFrame): void {
    if (!this.closed) this.input?.frame(frame)
  }

  /** The caller hangs up (or the line drops). */
  hangUp(how: 'hangup' | 'dropped' = 'hangup'): void {
    if (this.closed) return
    this.gone = true
    this.input?.frame({ type: 'caller_left', how })
  }

  writeAudio(frame: Int16Array): Promise<void> {
    this.framesWritten++
    this.frames.push(frame.slice())
    if (this.frames.length > this.maxFramesKept) this.frames.shift()
    return Promise.resolve()
  }

  clearAudio(): void {
    this.clears++
  }

  emit(event: CallerEvent): void {
    if (!this.closed) this.events.push(event)
  }

  end(reason: EndReason): void {
    if (this.endedWith === null && !this.gone) this.endedWith = reason
  }

  /** The caller's view of the conversation: final transcript lines, in order. */
  transcript(): { role: 'user' | 'agent'; text: string; interrupted: boolean }[] {
    return this.events.flatMap((e) => (e.type === 'transcript' && e.final ? [{ role: e.role, text: e.text, interrupted: e.interrupted }] : []))
  }
}
