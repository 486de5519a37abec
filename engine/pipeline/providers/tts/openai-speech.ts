/**
 * OpenAI-compatible speech (`POST /audio/speech`) through the `openai` SDK: OpenAI itself or any
 * server speaking its protocol (Kokoro-FastAPI, LocalAI, …) by base URL. `pcm` is asked for by
 * default because it is raw 24 kHz PCM16 mono that streams with no decoder; `wav` suits servers
 * without `pcm`. The SDK does no retries (maxRetries: 0): the caller fails over instead.
 */
import { requireApiKey, requirePositive } from '../client-checks.js'
import { openAiClient } from '../openai-client.js'
import { providerConnections, type ProviderConnections } from '../connections.js'
import type OpenAI from 'openai'
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai'
import { hostOf, refusedError, scrub, statusError, streamHttpAudio } from './http-stream.js'
import { pcmDecoder, wavDecoder } from './pcm-stream.js'
import { ProviderError } from '../errors.js'
import { checkText, type SynthesizeOptions, type TtsProvider } from './types.js'

export interface OpenAiSpeechOptions {
  apiKey: string
  baseURL: string
  model: string
  /** Used when a request names no voice; OpenAI's voices are multilingual, so language picks none. */
  voice: string
  responseFormat: 'pcm' | 'wav'
  /** The rate of `pcm` answers: 24 kHz at OpenAI (and most compatible servers). */
  pcmSampleRateHz: number
  /** OpenAI's limit on `input`. */
  maxTextChars: number
  timeoutMs: number
  idleTimeoutMs: number
  /**
   * The connection pool its requests go through. Default: the process pool, for the operator's
   * destinations (trusted); an organization's base URL gets a guarded pool (connections.ts).
   */
  connections?: ProviderConnections
}

export const DEFAULT_OPENAI_SPEECH_OPTIONS = {
  baseURL: 'https://api.openai.com/v1',
  model: 'gpt-4o-mini-tts',
  voice: 'alloy',
  responseFormat: 'pcm',
  pcmSampleRateHz: 24_000,
  maxTextChars: 4096,
  timeoutMs: 10_000,
  idleTimeoutMs: 10_000,
} as const satisfies Omit<OpenAiSpeechOptions, 'apiKey'>

export class OpenAiSpeechTts implements TtsProvider {
  readonly name = 'openai'
  readonly options: Readonly<Omit<OpenAiSpeechOptions, 'apiKey'>>
  private readonly apiKey: string
  private readonly who: string
  private readonly client: OpenAI
  private readonly connections: ProviderConnections

  constructor(options: Partial<OpenAiSpeechOptions> & { apiKey: string }) {
    const { apiKey, ...rest } = { ...DEFAULT_OPENAI_SPEECH_OPTIONS, ...options }
    requireApiKey('OpenAiSpeechTts', apiKey)
    this.who = `The OpenAI speech provider at ${hostOf('OpenAiSpeechTts', rest.baseURL)}`
    requirePositive('OpenAiSpeechTts', rest, ['timeoutMs', 'idleTimeoutMs', 'maxTextChars', 'pcmSampleRateHz'])
    if (rest.responseFormat !== 'pcm' && rest.responseFormat !== 'wav') throw new RangeError("OpenAiSpeechTts: responseFormat must be 'pcm' or 'wav'")
    this.options = rest
    this.apiKey = apiKey
    this.connections = rest.connections ?? providerConnections
    this.client = openAiClient({ apiKey, baseURL: rest.baseURL, timeoutMs: rest.timeoutMs, connections: this.connections })
  }

  /** Opens a connection for the next request now, while the caller still speaks (connections.ts). */
  prewarm(): void {
    this.connections.prewarm(this.options.baseURL, this)
  }

  async *synthesize(text: string, o: SynthesizeOptions): AsyncGenerator<Int16Array> {
    const opts = this.options
    checkText(this.who, text, opts.maxTextChars)
    const decoder = opts.responseFormat === 'pcm' ? pcmDecoder(opts.pcmSampleRateHz, o.sampleRate) : wavDecoder(o.sampleRate)
    const open = async (signal: AbortSignal) => {
      const res = await this.client.audio.speech.create(
        { model: opts.model, voice: o.voice || opts.voice, input: text, response_format: opts.responseFormat },
        { signal },
      )
      return res.body
    }
    yield* streamHttpAudio(open, decoder, {
      signal: o.signal,
      timeoutMs: opts.timeoutMs,
      idleTimeoutMs: opts.idleTimeoutMs,
      who: this.who,
      toError: (err) => this.toError(err),
    })
  }

  private toError(err: unknown): ProviderError<'tts'> {
    const refused = refusedError(this.who, err)
    if (refused) return refused
    if (err instanceof APIConnectionTimeoutError)
      return new ProviderError('tts', 'tts_timeout', `${this.who} sent no response within ${this.options.timeoutMs} ms`, { retryable: true })
    if (err instanceof APIConnectionError)
      return new ProviderError('tts', 'tts_unavailable', `${this.who} could not be reached: ${scrub(causeText(err), this.apiKey)}`, { retryable: true })
    if (err instanceof APIError && typeof err.status === 'number') {
      const body = err.error as { message?: unknown } | undefined
      const detail = scrub(typeof body?.message === 'string' ? body.message : err.message.replace(/^\d{3} /, ''), this.apiKey)
      // Billing exhaustion is a 429 at OpenAI too, and no amount of waiting fixes it.
      return statusError(this.who, err.status, detail, err.code === 'insufficient_quota')
    }
    // undici's "terminated": the connection broke while the body was streaming.
    return new ProviderError(
      'tts',
      'tts_failed',
      `${this.who} broke off the audio stream: ${scrub(err instanceof Error ? causeText(err) : String(err), this.apiKey)}`,
      { retryable: true },
    )
  }
}

function causeText(err: Error): string {
  const cause = (err as { cause?: unknown }).cause
  return cause instanceof Error ? `${err.message} (${(cause as { code?: string }).code ?? cause.message})` : err.message
}
