/**
 * The test caller's end of a voice call: a CallTransport the engine runs a call over, as it runs a
 * phone line's. Its microphone sends one 20 ms frame of PCM16 16 kHz every 20 ms in real time
 * (frame i at start + i·20 ms, drift-free): the caller's synthesized speech when it has some
 * queued, silence otherwise, as a microphone does. It keeps, on performance.now(), when each
 * agent audio frame arrived, when each utterance's speech ended, every event and every barge-in
 * (the engine dropping agent audio not yet played).
 */
import { performance } from 'node:perf_hooks'
import { FRAME_SAMPLES } from '../../engine/audio/index.js'
import type { CallerEvent, CallTransport, TransportInput } from '../../engine/index.js'

const FRAME_MS = 20
const SILENCE = new Int16Array(FRAME_SAMPLES)
/** Agent frames kept (timestamps): 10 minutes of audio. */
const MAX_AGENT_FRAMES = 30_000
/** Agent audio kept for transcription: 3 minutes (5.8 MB); later audio is timed but not kept. */
const MAX_AGENT_AUDIO_FRAMES = 9_000

export class TestCallerLine implements CallTransport {
  readonly name = 'test'
  readonly startedAt = performance.now()
  /** When each agent frame arrived (bounded: the oldest go first). */
  readonly agentFrames: number[] = []
  /** The agent's audio as it arrived, with when (the first 3 minutes), for transcription. */
  readonly agentAudio: { at: number; pcm: Int16Array }[] = []
  readonly events: { at: number; event: CallerEvent }[] = []
  /** performance.now() of each barge-in (clearAudio). */
  readonly clears: number[] = []
  endedWith: string | null = null
  private input: TransportInput | null = null
  private readonly speech: Int16Array[] = []
  private speechEnded: ((at: number) => void) | null = null
  private sent = 0
  private timer: NodeJS.Timeout | null = null
  private gone = false

  get closed(): boolean {
    return this.gone || this.endedWith !== null
  }

  attach(input: TransportInput): void {
    this.input = input
    this.timer = setInterval(() => this.pump(), 5)
  }

  /** Queues speech; resolves with performance.now() once its last frame was sent. */
  say(pcm: Int16Array): Promise<number> {
    for (let i = 0; i < pcm.length; i += FRAME_SAMPLES) {
      const frame = new Int16Array(FRAME_SAMPLES)
      frame.set(pcm.subarray(i, Math.min(pcm.length, i + FRAME_SAMPLES)))
      this.speech.push(frame)
    }
    return new Promise((resolve) => {
      this.speechEnded = resolve
      if (!this.speech.length || this.closed) resolve(performance.now())
    })
  }

  /** Agent frames that arrived after `at`. */
  agentFramesAfter(at: number): number[] {
    return this.agentFrames.filter((t) => t > at)
  }

  /** The caller hangs up. */
  hangUp(): void {
    if (this.closed) return
    this.gone = true
    this.input?.frame({ type: 'caller_left', how: 'hangup' })
    this.stop()
  }

  writeAudio(frame: Int16Array): Promise<void> {
    const at = performance.now()
    if (this.agentAudio.length < MAX_AGENT_AUDIO_FRAMES) this.agentAudio.push({ at, pcm: frame.slice() })
    this.agentFrames.push(at)
    if (this.agentFrames.length > MAX_AGENT_FRAMES) this.agentFrames.shift()
    return Promise.resolve()
  }

  clearAudio(): void {
    this.clears.push(performance.now())
  }

  emit(event: CallerEvent): void {
    this.events.push({ at: performance.now(), event })
  }

  end(reason: string): void {
    if (this.endedWith !== null) return
    this.endedWith = reason
    this.stop()
  }

  private pump(): void {
    const due = Math.floor((performance.now() - this.startedAt) / FRAME_MS)
    // At most a second of backlog after a stalled loop: later frames would only pile up.
    if (due - this.sent > 50) this.sent = due - 50
    while (this.sent < due && !this.closed) {
      this.sent++
      const frame = this.speech.shift()
      this.input?.audio(frame ?? SILENCE, 16_000)
      if (frame && !this.speech.length) {
        this.speechEnded?.(performance.now())
        this.speechEnded = null
      }
    }
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    this.speechEnded?.(performance.now())
    this.speechEnded = null
  }
}
