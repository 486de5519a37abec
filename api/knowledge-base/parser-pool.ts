import os from 'node:os'
import { Worker } from 'node:worker_threads'
import { ApiError } from '../http/errors.js'
import type { DocumentKind } from './parsers.js'

/**
 * A few worker threads that run the document parsers (parse-worker.ts), so that a hostile or
 * pathological upload costs a thread we can kill, never the event loop that serves the API (and,
 * in the same process, live calls). Each worker parses one file at a time under a wall-clock
 * deadline and a heap cap; a worker that overruns is terminated, one that dies is replaced, and
 * both refusals reach the caller as ParseRefused (a 422 in parsers.ts). Workers start on demand
 * and, once idle, are unref'd and exit after idleMs, so the pool never holds the process open.
 */

export type WorkerKind = Exclude<DocumentKind, 'text'>
export interface WorkerRequest {
  kind: WorkerKind
  data: Uint8Array
}
export type WorkerReply = { ready: true } | { text: string } | { refused: string } | { error: string }

/** The file could not be read: the parsers' own refusal, or the worker overran or died on it. */
export class ParseRefused extends Error {
  override name = 'ParseRefused'
}

export interface ParserPoolOptions {
  /** Workers at most, each parsing one file at a time. */
  size?: number
  /** Files waiting for a worker at most; one more is refused with 503 service_unavailable. */
  maxQueue?: number
  /** Wall-clock time one file may take, from when its worker is up. */
  deadlineMs?: number
  /** Time a new worker may take to load the parsers; past it the install is broken, not the file. */
  startupMs?: number
  /** V8 old-generation heap cap of a worker (resourceLimits.maxOldGenerationSizeMb). */
  memoryMb?: number
  /** An idle worker exits after this long; the next file starts a new one. */
  idleMs?: number
}

const DEFAULTS: Required<ParserPoolOptions> = {
  // Leave a core to the main thread (API, live calls): on two cores, one worker.
  size: Math.max(1, Math.min(2, os.availableParallelism() - 1)),
  maxQueue: 8,
  deadlineMs: 20_000,
  startupMs: 30_000,
  memoryMb: 512,
  idleMs: 30_000,
}

// Plain JavaScript that registers tsx, then loads parse-worker.ts (see the file for why).
const BOOT = new URL('./parse-worker-boot.mjs', import.meta.url)

interface Job {
  kind: WorkerKind
  data: Uint8Array<ArrayBuffer>
  resolve(text: string): void
  reject(err: unknown): void
}

interface Slot {
  worker: Worker
  /** The worker loaded its parsers: a death after this is the file's doing. */
  ready: boolean
  job?: Job
  /** Startup limit, then the job's deadline while busy, then the idle exit. */
  timer?: NodeJS.Timeout
  error?: Error
}

export class ParserPool {
  private readonly options: Required<ParserPoolOptions>
  private readonly slots = new Set<Slot>()
  private readonly queue: Job[] = []

  constructor(options: ParserPoolOptions = {}) {
    this.options = { ...DEFAULTS, ...options }
  }

  /** Normalized text of the file; rejects with ParseRefused (422), ApiError 503 (queue full) or Error (a bug). */
  parse(kind: WorkerKind, data: Uint8Array): Promise<string> {
    const free = this.slots.size < this.options.size || [...this.slots].some((s) => !s.job)
    if (!free && this.queue.length >= this.options.maxQueue) {
      return Promise.reject(new ApiError('service_unavailable', 'Too many documents are being read; try again shortly.', { 'Retry-After': '5' }))
    }
    return new Promise((resolve, reject) => {
      // A copy of our own, moved (not cloned) to the worker: the caller's Buffer may view a larger or
      // pooled ArrayBuffer, and the upload still reads it after the parse.
      this.queue.push({ kind, data: new Uint8Array(data), resolve, reject })
      this.pump()
    })
  }

  /** Ends every worker now; queued and running parses fail with 503. The pool can be used again. */
  async close(): Promise<void> {
    const closing = () => new ApiError('service_unavailable', 'The document parsers are shutting down.')
    for (const job of this.queue.splice(0)) job.reject(closing())
    await Promise.all(
      [...this.slots].map((slot) => {
        const job = slot.job
        const exited = this.retire(slot)
        job?.reject(closing())
        return exited
      }),
    )
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = [...this.slots].find((s) => !s.job)
      if (!slot) {
        if (this.slots.size >= this.options.size) return
        slot = this.spawn()
      }
      this.run(slot, this.queue.shift()!)
    }
  }

  private spawn(): Slot {
    const worker = new Worker(BOOT, {
      // The boot file loads TypeScript itself; the parent's loader flags (tsx's, tap's) do not take
      // in a Node 20 worker and would only slow its start.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb },
    })
    const slot: Slot = { worker, ready: false }
    slot.timer = setTimeout(
      () => this.fail(slot, new Error(`The document parser worker did not start within ${this.options.startupMs} ms.`)),
      this.options.startupMs,
    )
    worker.on('message', (m: WorkerReply) => this.onReply(slot, m))
    // Out of memory (ERR_WORKER_OUT_OF_MEMORY) or an uncaught exception; 'exit' follows and acts.
    worker.on('error', (err) => (slot.error = err))
    worker.on('exit', () => {
      if (!this.slots.has(slot)) return // we ended it ourselves
      const cause = slot.error
      this.fail(
        slot,
        slot.ready
          ? new ParseRefused('The file could not be parsed: the parser ran out of memory or crashed on it.', { cause })
          : new Error('The document parser worker could not start.', { cause }),
      )
    })
    this.slots.add(slot)
    return slot
  }

  private run(slot: Slot, job: Job): void {
    slot.job = job
    slot.worker.ref()
    slot.worker.postMessage({ kind: job.kind, data: job.data } satisfies WorkerRequest, [job.data.buffer])
    if (slot.ready) this.arm(slot) // else on 'ready': the deadline is the file's, not the worker's start
  }

  private arm(slot: Slot): void {
    clearTimeout(slot.timer)
    const seconds = Math.round(this.options.deadlineMs / 100) / 10
    slot.timer = setTimeout(
      () => this.fail(slot, new ParseRefused(`Parsing the file took too long (over ${seconds} s): it is too large, too complex or malformed.`)),
      this.options.deadlineMs,
    )
  }

  private onReply(slot: Slot, m: WorkerReply): void {
    if ('ready' in m) {
      slot.ready = true
      clearTimeout(slot.timer)
      if (slot.job) this.arm(slot)
      return
    }
    const job = slot.job
    if (!job) return
    slot.job = undefined
    clearTimeout(slot.timer)
    if ('text' in m) job.resolve(m.text)
    else if ('refused' in m) job.reject(new ParseRefused(m.refused))
    else job.reject(new Error(`The document parser failed: ${m.error}`))
    // Idle: let the process exit past it, and end it if no file comes for a while.
    slot.worker.unref()
    slot.timer = setTimeout(() => void this.retire(slot), this.options.idleMs).unref()
    this.pump()
  }

  /** Gives up on a worker (overran, died, never started): its file fails, the queue moves on. */
  private fail(slot: Slot, err: Error): void {
    const job = slot.job
    void this.retire(slot)
    job?.reject(err)
    this.pump()
  }

  private retire(slot: Slot): Promise<unknown> {
    this.slots.delete(slot)
    clearTimeout(slot.timer)
    slot.job = undefined
    return slot.worker.terminate()
  }
}
