/**
 * OpenAI-compatible transcription (`POST /audio/transcriptions`, whisper-1, gpt-4o(-mini)-transcribe,
 * or a compatible server such as faster-whisper-server) through the `openai` SDK. Not streaming:
 * the audio of one utterance, cut by the VAD (endUtterance), is sent as a WAV and answered with
 * one final. Segments are transcribed one at a time, so finals arrive in the order spoken.
 */
import { baseUrlHost, requireApiKey, requirePositive } from '../client-checks.js'
import { openAiClient } from '../openai-client.js'
import { providerConnections, type ProviderConnections } from '../connections.js'
import type OpenAI from 'openai'
import { APIConnectionError, APIConnectionTimeoutError, APIError, toFile } from 'openai'
import { encodeWav, isSpeechRate, type SpeechRate } from '../../../audio/index.js'
import { destinationRefusal } from '../../../../core/index.js'
import { sttEventChannel } from './event-queue.js'
import { isProviderError, ProviderError } from '../errors.js'
import { scrubSecret, type SttEvent, type SttOpenOptions, type SttProvider, type SttStream } from './types.js'

export interface OpenAiTranscribeOptions {
  apiKey: string
  /** Any OpenAI-compatible server, e.g. http://localhost:8000/v1. */
  baseURL: string
  model: string
  /** Per request; a request still unanswered then fails the stream with stt_timeout. */
  timeoutMs: number
  /**
   * A segment this long is sent without waiting for endUtterance, as a final with speech_final
   * false (the user is still speaking): memory stays bounded and nothing is lost.
   */
  maxUtteranceMs: number
  /** Segments cut but not yet answered; one more fails the stream (the server cannot keep up). */
  maxPendingSegments: number
  /**
   * The connection pool its requests go through. Default: the process pool, for the operator's
   * destinations (trusted); an organization's base URL gets a guarded pool (connections.ts).
   */
  connections?: ProviderConnections
}

export const DEFAULT_OPENAI_TRANSCRIBE_OPTIONS = {
  baseURL: 'https://api.openai.com/v1',
  model: 'gpt-4o-mini-transcribe',
  timeoutMs: 10_000,
  maxUtteranceMs: 60_000,
  maxPendingSegments: 4,
} as const satisfies Omit<OpenAiTranscribeOptions, 'apiKey'>

/** OpenAI refuses audio shorter than 0.1 s; such a segment is answered locally with an empty final. */
const MIN_SEGMENT_MS = 100

export class OpenAiTranscribeStt implements SttProvider {
  readonly name = 'openai'
  readonly streaming = false
  readonly options: Readonly<Omit<OpenAiTranscribeOptions, 'apiKey'>>
  private readonly client: OpenAI
  private readonly host: string
  private readonly apiKey: string
  private readonly connections: ProviderConnections

  constructor(options: Partial<OpenAiTranscribeOptions> & { apiKey: string }) {
    const { apiKey, ...rest } = { ...DEFAULT_OPENAI_TRANSCRIBE_OPTIONS, ...options }
    requireApiKey('OpenAiTranscribeStt', apiKey)
    const host = baseUrlHost('OpenAiTranscribeStt', rest.baseURL)
    requirePositive('OpenAiTranscribeStt', rest, ['timeoutMs', 'maxUtteranceMs', 'maxPendingSegments'])
    this.options = rest
    this.apiKey = apiKey
    this.host = host
    this.connections = rest.connections ?? providerConnections
    this.client = openAiClient({ apiKey, baseURL: rest.baseURL, timeoutMs: rest.timeoutMs, connections: this.connections })
  }

  /** Opens a connection for the next request now, while the caller still speaks (connections.ts). */
  prewarm(): void {
    this.connections.prewarm(this.options.baseURL, this)
  }

  open(o: SttOpenOptions): SttStream {
    if (!isSpeechRate(o.sampleRate)) throw new RangeError(`OpenAiTranscribeStt: sampleRate must be 8000 or 16000, got ${o.sampleRate}`)
    return new TranscribeStream(this, o)
  }

  /** One segment at `sampleRate` → its text; throws an `stt` ProviderError. */
  async transcribe(pcm: Int16Array, sampleRate: SpeechRate, language: string, signal: AbortSignal): Promise<string> {
    const file = await toFile(encodeWav(pcm, sampleRate), 'utterance.wav', { type: 'audio/wav' })
    try {
      // OpenAI takes ISO-639-1 (`en`), not a full BCP-47 tag (`en-US`).
      const lang = language.split('-')[0]!.toLowerCase()
      const res = await this.client.audio.transcriptions.create(
        { file, model: this.options.model, ...(lang ? { language: lang } : {}), response_format: 'json' },
        { signal },
      )
      return (res.text ?? '').trim()
    } catch (err) {
      throw transcriptionFailure(err, this.host, this.apiKey, this.options.timeoutMs)
    }
  }
}

class TranscribeStream implements SttStream {
  private readonly queue = sttEventChannel()
  readonly events: AsyncIterable<SttEvent> = this.queue
  private frames: Int16Array[] = []
  private samples = 0
  /** Audio offset (samples) of the current segment's first sample. */
  private segmentStart = 0
  private readonly cut: Array<{ pcm: Int16Array; startMs: number; speechFinal: boolean }> = []
  private working = false
  private state: 'open' | 'closing' | 'ended' = 'open'
  private readonly ac = new AbortController()
  private readonly done: Promise<void>
  private resolveDone!: () => void
  private readonly minSegmentSamples: number

  constructor(
    private readonly provider: OpenAiTranscribeStt,
    private readonly open: SttOpenOptions,
  ) {
    this.minSegmentSamples = (MIN_SEGMENT_MS * open.sampleRate) / 1000
    this.done = new Promise((r) => (this.resolveDone = r))
    const onAbort = () => this.end(null)
    if (open.signal.aborted) this.end(null)
    else {
      open.signal.addEventListener('abort', onAbort, { once: true })
      void this.done.then(() => open.signal.removeEventListener('abort', onAbort))
    }
  }

  push(pcm: Int16Array): void {
    if (this.state !== 'open' || pcm.length === 0) return
    // Copied: the caller may reuse its frame buffer.
    this.frames.push(pcm.slice())
    this.samples += pcm.length
    if (this.samples >= (this.provider.options.maxUtteranceMs * this.open.sampleRate) / 1000) this.cutSegment(false)
  }

  endUtterance(): void {
    if (this.state === 'open') this.cutSegment(true)
  }

  async close(): Promise<void> {
    if (this.state === 'open') {
      this.state = 'closing'
      if (this.samples >= this.minSegmentSamples) this.cutSegment(true)
      if (!this.working) this.end(null)
    }
    return this.done
  }

  private cutSegment(speechFinal: boolean): void {
    const pcm = new Int16Array(this.samples)
    let at = 0
    for (const f of this.frames) {
      pcm.set(f, at)
      at += f.length
    }
    this.cut.push({ pcm, startMs: (this.segmentStart * 1000) / this.open.sampleRate, speechFinal })
    this.segmentStart += this.samples
    this.frames = []
    this.samples = 0
    if (this.cut.length > this.provider.options.maxPendingSegments) {
      return this.end(new ProviderError('stt', 'stt_unavailable', `the transcription server is ${this.cut.length} utterances behind`, { retryable: true }))
    }
    void this.work()
  }

  private get ended(): boolean {
    return this.state === 'ended'
  }

  private async work(): Promise<void> {
    if (this.working) return
    this.working = true
    for (let seg = this.cut.shift(); seg && !this.ended; seg = this.cut.shift()) {
      const end_ms = seg.startMs + (seg.pcm.length * 1000) / this.open.sampleRate
      try {
        const text =
          seg.pcm.length < this.minSegmentSamples ? '' : await this.provider.transcribe(seg.pcm, this.open.sampleRate, this.open.language, this.ac.signal)
        // The stream may have ended (abort, close) while the request was in flight.
        if (!this.ended) this.queue.offer({ type: 'final', text, start_ms: Math.round(seg.startMs), end_ms: Math.round(end_ms), speech_final: seg.speechFinal })
      } catch (err) {
        this.end(isProviderError(err, 'stt') ? err : new ProviderError('stt', 'stt_failed', 'transcription failed', { retryable: true }))
      }
    }
    this.working = false
    if (this.state === 'closing') this.end(null)
  }

  /** Error (if any) last, events end, the request in flight is aborted. An abort is not an error. */
  private end(error: ProviderError<'stt'> | null): void {
    if (this.state === 'ended') return
    this.state = 'ended'
    this.cut.length = 0
    this.frames = []
    this.ac.abort()
    if (error && !this.open.signal.aborted) this.queue.offer({ type: 'error', error })
    this.queue.close()
    this.resolveDone()
  }
}

/** Maps what the SDK threw to an `stt` ProviderError; the key never reaches the message. */
export function transcriptionFailure(err: unknown, host: string, apiKey: string, timeoutMs: number): ProviderError<'stt'> {
  const at = `The transcription server at ${host}`
  if (isProviderError(err, 'stt')) return err
  const refusal = destinationRefusal(err)
  if (refusal) return new ProviderError('stt', 'stt_failed', `${at} is refused by the outbound guard: ${refusal.message}`, { retryable: false })
  if (err instanceof APIConnectionTimeoutError)
    return new ProviderError('stt', 'stt_timeout', `${at} sent no answer within ${timeoutMs} ms`, { retryable: true })
  if (err instanceof APIConnectionError) return new ProviderError('stt', 'stt_unavailable', `${at} could not be reached`, { retryable: true })
  if (err instanceof APIError && typeof err.status === 'number') {
    const s = err.status
    const body = err.error as { message?: unknown } | undefined
    const detail = scrubSecret(typeof body?.message === 'string' ? body.message : '', apiKey).slice(0, 300)
    if (s === 401 || s === 403)
      return new ProviderError('stt', 'stt_auth', `${at} refused the API key (HTTP ${s}); check the organization's openai credential`, {
        retryable: false,
        upstreamStatus: s,
      })
    if (s === 408) return new ProviderError('stt', 'stt_timeout', `${at} timed out (HTTP 408)`, { retryable: true, upstreamStatus: s })
    if (s === 429 || s >= 500)
      return new ProviderError('stt', 'stt_unavailable', `${at} is unavailable (HTTP ${s})${detail ? `: ${detail}` : ''}`, {
        retryable: true,
        upstreamStatus: s,
      })
    return new ProviderError('stt', 'stt_failed', `${at} refused the audio (HTTP ${s})${detail ? `: ${detail}` : ''}`, { retryable: false, upstreamStatus: s })
  }
  return new ProviderError('stt', 'stt_failed', `${at} broke off the answer`, { retryable: true })
}
