/**
 * Backpressure on the caller's audio. A browser WebSocket never blocks: `send` queues without
 * limit and `bufferedAmount` says how much is waiting. Caller audio that waits is worth less every
 * millisecond (the agent would answer what was said seconds ago), so the library bounds it twice:
 * - at most `maxBufferedBytes` in the socket (DEFAULT 6400 bytes = 200 ms of 16 kHz PCM16);
 * - at most `maxQueuedFrames` more held here (DEFAULT 10 frames = 200 ms) while the socket is
 *   over that; a frame arriving to a full queue drops the OLDEST one, counted in `dropped`.
 * So at most 400 ms of caller audio is ever pending, and memory stays bounded on a stalled link.
 * Pure: `push` is told the socket's buffered bytes and returns the frames to send now.
 */

export interface CallerAudioQueueOptions {
  maxBufferedBytes: number
  maxQueuedFrames: number
}

export const DEFAULT_CALLER_AUDIO_QUEUE: CallerAudioQueueOptions = { maxBufferedBytes: 6400, maxQueuedFrames: 10 }

export class CallerAudioQueue {
  private readonly options: CallerAudioQueueOptions
  private queue: ArrayBuffer[] = []
  /** Frames dropped because the link could not keep up. */
  dropped = 0

  constructor(options: Partial<CallerAudioQueueOptions> = {}) {
    this.options = { ...DEFAULT_CALLER_AUDIO_QUEUE, ...options }
    const maxBufferedBytes = this.options.maxBufferedBytes
    const maxQueuedFrames = this.options.maxQueuedFrames
    if (!(maxBufferedBytes >= 0)) throw new RangeError(`maxBufferedBytes must be ≥ 0, got ${maxBufferedBytes}`)
    if (!(Number.isInteger(maxQueuedFrames) && maxQueuedFrames >= 1)) throw new RangeError(`maxQueuedFrames must be an integer ≥ 1, got ${maxQueuedFrames}`)
  }

  get queued(): number {
    return this.queue.length
  }

  /** Queues `frame` (dropping the oldest when full) and returns, oldest first, what fits in the socket now. */
  push(frame: ArrayBuffer, bufferedBytes: number): ArrayBuffer[] {
    if (this.queue.length === this.options.maxQueuedFrames) {
      this.queue.shift()
      this.dropped++
    }
    this.queue.push(frame)
    return this.drain(bufferedBytes)
  }

  /** The queued frames that fit under the socket's limit given its buffered bytes now. */
  drain(bufferedBytes: number): ArrayBuffer[] {
    const out: ArrayBuffer[] = []
    let buffered = bufferedBytes
    while (this.queue.length > 0 && buffered + this.queue[0]!.byteLength <= this.options.maxBufferedBytes) {
      const frame = this.queue.shift()!
      buffered += frame.byteLength
      out.push(frame)
    }
    return out
  }

  /** Forgets queued audio (the microphone was muted or the call ended); not counted as dropped. */
  clear(): void {
    this.queue = []
  }
}
