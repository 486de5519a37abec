/**
 * Outgoing audio for one socket, with backpressure. Policy (docs/protocol.md, "Backpressure"):
 * - chunks go to the socket while its buffered bytes stay under `highWaterBytes`; above that the
 *   writer pauses and resumes on the socket's drain;
 * - paused chunks wait in a queue of at most `maxQueueBytes`; a producer writing into a full queue
 *   waits (its write() promise resolves once the chunk is queued) — nothing is dropped silently,
 *   because playout must know exactly what the caller heard;
 * - flush() (barge-in) discards everything queued and every waiting write (they resolve false).
 * JSON events do not pass through here: they are small and sent directly, ahead of queued audio.
 */
import type { Conn } from './socket.js'

export interface AudioWriterOptions {
  /** Socket buffered bytes above which the writer pauses. */
  highWaterBytes: number
  /** Bytes queued in the writer while paused before write() starts to wait. */
  maxQueueBytes: number
}

/** 64 KiB ≈ 2 s of 16 kHz PCM16 in the socket; 256 KiB ≈ 8 s more in the queue. */
export const DEFAULT_AUDIO_WRITER: AudioWriterOptions = { highWaterBytes: 64 * 1024, maxQueueBytes: 256 * 1024 }

interface Waiter {
  chunk: Uint8Array
  resolve: (queued: boolean) => void
}

export class AudioWriter {
  private readonly options: AudioWriterOptions
  private queue: Uint8Array[] = []
  private queued = 0
  private waiters: Waiter[] = []
  private done = false

  constructor(
    private readonly conn: Conn,
    options: Partial<AudioWriterOptions> = {},
  ) {
    this.options = { ...DEFAULT_AUDIO_WRITER, ...options }
    if (!(this.options.highWaterBytes > 0) || !(this.options.maxQueueBytes > 0)) throw new RangeError('AudioWriter limits must be positive')
    conn.onDrain(() => this.pump())
    conn.onClose(() => this.close())
  }

  /** Bytes waiting in this writer (not counting the socket's own buffer). */
  get queuedBytes(): number {
    return this.queued
  }
  /** True while audio waits for the socket to drain. */
  get paused(): boolean {
    return this.queue.length > 0
  }

  /** Resolves true once the chunk is sent or queued; false if it was discarded (flush or close). */
  write(chunk: Uint8Array): Promise<boolean> {
    if (this.done) return Promise.resolve(false)
    if (this.waiters.length === 0 && this.fits(chunk)) {
      this.enqueue(chunk)
      return Promise.resolve(true)
    }
    return new Promise((resolve) => this.waiters.push({ chunk, resolve }))
  }

  /** Barge-in: drops queued audio and waiting writes. Returns the bytes dropped. */
  flush(): number {
    const dropped = this.queued + this.waiters.reduce((n, w) => n + w.chunk.byteLength, 0)
    this.queue = []
    this.queued = 0
    for (const w of this.waiters.splice(0)) w.resolve(false)
    return dropped
  }

  close(): void {
    this.flush()
    this.done = true
  }

  // A chunk larger than the whole queue is still accepted into an empty queue, so it cannot wait forever.
  private fits(chunk: Uint8Array): boolean {
    return this.queued === 0 || this.queued + chunk.byteLength <= this.options.maxQueueBytes
  }

  private enqueue(chunk: Uint8Array): void {
    this.queue.push(chunk)
    this.queued += chunk.byteLength
    this.pump()
  }

  private canSend(): boolean {
    return !this.conn.closed && this.conn.bufferedAmount() < this.options.highWaterBytes
  }

  private pump(): void {
    for (;;) {
      while (this.queue.length > 0 && this.canSend()) {
        const chunk = this.queue.shift()!
        this.queued -= chunk.byteLength
        if (this.conn.send(chunk) === 'dropped') {
          if (this.conn.closed) {
            this.close()
            return
          }
          // Over the socket's hard limit (events filled it): keep the chunk, wait for drain.
          this.queue.unshift(chunk)
          this.queued += chunk.byteLength
          this.admitWaiters()
          return
        }
      }
      if (this.admitWaiters() === 0 || !this.canSend()) return
    }
  }

  private admitWaiters(): number {
    let n = 0
    while (this.waiters.length > 0 && this.fits(this.waiters[0]!.chunk)) {
      const w = this.waiters.shift()!
      this.queue.push(w.chunk)
      this.queued += w.chunk.byteLength
      w.resolve(true)
      n++
    }
    return n
  }
}
