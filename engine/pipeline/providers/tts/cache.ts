/**
 * Audio for static lines (greetings, `say` nodes) synthesized once per (provider, voice, language,
 * rate, text) and replayed from memory. Bounded by total bytes, least recently used out first. Only a
 * complete synthesis is stored: an aborted or failed one would replay a truncated clip forever.
 * Concurrent callers for the same line share one synthesis and each gets every chunk as it arrives,
 * so a cold line costs its first-chunk latency once, not once per caller. Dynamic text (LLM output)
 * should not come here: the caller decides.
 */
import { SAMPLE_RATE, type SpeechRate } from '../../../audio/format.js'
import type { SynthesizeOptions, TtsProvider } from './types.js'

export interface TtsCacheOptions {
  /** Total PCM bytes held; a clip larger than this is never stored. */
  maxBytes: number
}

export const DEFAULT_TTS_CACHE_OPTIONS: TtsCacheOptions = { maxBytes: 32 * 1024 * 1024 }

/** A synthesis in progress that any number of callers read from. */
class Flight {
  readonly chunks: Int16Array[] = []
  state: 'running' | 'done' | 'failed' = 'running'
  error: unknown
  readers = 0
  readonly ac = new AbortController()
  private waiters: (() => void)[] = []

  changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason)
      signal.addEventListener('abort', onAbort, { once: true })
      this.waiters.push(() => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      })
    })
  }

  notify(): void {
    const w = this.waiters
    this.waiters = []
    for (const f of w) f()
  }
}

export class TtsCache {
  readonly options: Readonly<TtsCacheOptions>
  private readonly clips = new Map<string, { chunks: Int16Array[]; bytes: number }>()
  private readonly flights = new Map<string, Flight>()
  private total = 0

  constructor(options: Partial<TtsCacheOptions> = {}) {
    const o = { ...DEFAULT_TTS_CACHE_OPTIONS, ...options }
    if (!Number.isFinite(o.maxBytes) || o.maxBytes < 0) throw new RangeError('TtsCache: maxBytes must be ≥ 0')
    this.options = o
  }

  /** A phone call's 8 kHz clip is another clip than a web call's 16 kHz one. */
  static key(provider: string, text: string, o: { voice?: string; language?: string; sampleRate?: SpeechRate }): string {
    return JSON.stringify([provider, o.voice ?? '', o.language ?? '', o.sampleRate ?? SAMPLE_RATE, text])
  }

  get bytes(): number {
    return this.total
  }

  get size(): number {
    return this.clips.size
  }

  has(provider: string, text: string, o: { voice?: string; language?: string; sampleRate?: SpeechRate } = {}): boolean {
    return this.clips.has(TtsCache.key(provider, text, o))
  }

  /** The line's audio: from memory when cached, else from a (possibly shared) synthesis that fills the cache. */
  async *synthesizeCached(provider: TtsProvider, text: string, o: SynthesizeOptions): AsyncGenerator<Int16Array> {
    const { signal } = o
    signal.throwIfAborted()
    const key = TtsCache.key(provider.name, text, o)
    const clip = this.clips.get(key)
    if (clip) {
      // Re-inserted: Map order is the recency order.
      this.clips.delete(key)
      this.clips.set(key, clip)
      // Copies, so a consumer that writes into its chunk cannot change the cached clip.
      for (const c of clip.chunks) {
        signal.throwIfAborted()
        yield c.slice()
      }
      return
    }
    const flight = this.flights.get(key) ?? this.launch(key, provider, text, o)
    flight.readers++
    try {
      for (let i = 0; ; ) {
        signal.throwIfAborted()
        if (i < flight.chunks.length) {
          yield flight.chunks[i++]!.slice()
          continue
        }
        if (flight.state === 'done') return
        if (flight.state === 'failed') throw flight.error
        await flight.changed(signal)
      }
    } finally {
      // The synthesis stops only when nobody is listening any more.
      if (--flight.readers === 0 && flight.state === 'running') {
        // Out of the map at once, so a caller arriving now starts afresh instead of joining a doomed one.
        if (this.flights.get(key) === flight) this.flights.delete(key)
        flight.ac.abort(signal.reason)
      }
    }
  }

  private launch(key: string, provider: TtsProvider, text: string, o: SynthesizeOptions): Flight {
    const flight = new Flight()
    this.flights.set(key, flight)
    const run = async () => {
      const opts = {
        ...(o.voice !== undefined ? { voice: o.voice } : {}),
        ...(o.language !== undefined ? { language: o.language } : {}),
        ...(o.sampleRate !== undefined ? { sampleRate: o.sampleRate } : {}),
        signal: flight.ac.signal,
      }
      for await (const chunk of provider.synthesize(text, opts)) {
        flight.chunks.push(chunk)
        flight.notify()
      }
      // A provider may end quietly on abort; a clip cut short that way is not complete either.
      flight.ac.signal.throwIfAborted()
    }
    run()
      .then(
        () => {
          flight.state = 'done'
          this.store(key, flight.chunks)
        },
        (err: unknown) => {
          flight.state = 'failed'
          flight.error = err
        },
      )
      .finally(() => {
        if (this.flights.get(key) === flight) this.flights.delete(key)
        flight.notify()
      })
    return flight
  }

  private store(key: string, chunks: Int16Array[]): void {
    const bytes = chunks.reduce((n, c) => n + c.byteLength, 0)
    if (bytes > this.options.maxBytes) return
    const old = this.clips.get(key)
    if (old) {
      this.clips.delete(key)
      this.total -= old.bytes
    }
    for (const [k, clip] of this.clips) {
      if (this.total + bytes <= this.options.maxBytes) break
      this.clips.delete(k)
      this.total -= clip.bytes
    }
    this.clips.set(key, { chunks, bytes })
    this.total += bytes
  }
}
