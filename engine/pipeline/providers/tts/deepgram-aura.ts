/**
 * Deepgram Aura through `@deepgram/sdk` v5's REST speak endpoint (`POST /v1/speak`). We ask for
 * headerless linear16 at the engine's own rate (16 kHz, container none), so the body is our format
 * already and only needs cutting at whole samples: network reads end on odd bytes.
 * The generated client is used rather than the SDK's default export, whose wrapper would read
 * DEEPGRAM_ACCESS_TOKEN from the environment; here every setting is explicit.
 */
import { requireApiKey, requirePositive } from '../client-checks.js'
import { providerConnections, type ProviderConnections } from '../connections.js'
import { DeepgramError, DeepgramTimeoutError, DefaultDeepgramClient } from '@deepgram/sdk'
import { SAMPLE_RATE } from '../../../audio/format.js'
import { hostOf, refusedError, scrub, statusError, streamHttpAudio } from './http-stream.js'
import { pcmDecoder } from './pcm-stream.js'
import { ProviderError } from '../errors.js'
import { checkText, type SynthesizeOptions, type TtsProvider } from './types.js'

export interface DeepgramAuraOptions {
  apiKey: string
  /** Without a path: the SDK appends /v1/speak. */
  baseUrl: string
  /** The model is the voice at Deepgram (`aura-2-thalia-en`). */
  voice: string
  /** Deepgram's limit on `text`. */
  maxTextChars: number
  timeoutMs: number
  idleTimeoutMs: number
  /**
   * The connection pool its requests go through. Default: the process pool, for the operator's
   * destinations (trusted); an organization's base URL gets a guarded pool (connections.ts).
   */
  connections?: ProviderConnections
}

export const DEFAULT_DEEPGRAM_AURA_OPTIONS = {
  baseUrl: 'https://api.deepgram.com',
  voice: 'aura-2-thalia-en',
  maxTextChars: 2000,
  timeoutMs: 10_000,
  idleTimeoutMs: 10_000,
} as const satisfies Omit<DeepgramAuraOptions, 'apiKey'>

export class DeepgramAuraTts implements TtsProvider {
  readonly name = 'deepgram'
  readonly options: Readonly<Omit<DeepgramAuraOptions, 'apiKey'>>
  private readonly apiKey: string
  private readonly who: string
  private readonly client: DefaultDeepgramClient
  private readonly connections: ProviderConnections

  constructor(options: Partial<DeepgramAuraOptions> & { apiKey: string }) {
    const { apiKey, ...rest } = { ...DEFAULT_DEEPGRAM_AURA_OPTIONS, ...options }
    requireApiKey('DeepgramAuraTts', apiKey)
    this.who = `Deepgram Aura at ${hostOf('DeepgramAuraTts', rest.baseUrl)}`
    requirePositive('DeepgramAuraTts', rest, ['timeoutMs', 'idleTimeoutMs', 'maxTextChars'])
    this.options = rest
    this.apiKey = apiKey
    this.connections = rest.connections ?? providerConnections
    this.client = new DefaultDeepgramClient({
      apiKey,
      baseUrl: rest.baseUrl,
      maxRetries: 0,
      // The SDK's timeout stops at the response headers; the first-byte watchdog is ours.
      timeoutInSeconds: Math.ceil(rest.timeoutMs / 1000),
      logging: { silent: true },
      fetch: this.connections.fetch,
    })
  }

  /** Opens a connection for the next request now, while the caller still speaks (connections.ts). */
  prewarm(): void {
    this.connections.prewarm(this.options.baseUrl, this)
  }

  async *synthesize(text: string, o: SynthesizeOptions): AsyncGenerator<Int16Array> {
    const opts = this.options
    checkText(this.who, text, opts.maxTextChars)
    // Deepgram speaks at the rate asked (8 kHz for a phone line): nothing to resample.
    const rate = o.sampleRate ?? SAMPLE_RATE
    const open = async (signal: AbortSignal) => {
      const res = await this.client.speak.v1.audio.generate(
        { text, model: o.voice || opts.voice, encoding: 'linear16', sample_rate: rate, container: 'none' },
        { abortSignal: signal, maxRetries: 0 },
      )
      return res.stream()
    }
    yield* streamHttpAudio(open, pcmDecoder(rate, rate), {
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
    if (err instanceof DeepgramTimeoutError)
      return new ProviderError('tts', 'tts_timeout', `${this.who} sent no response within ${this.options.timeoutMs} ms`, { retryable: true })
    if (err instanceof DeepgramError && err.statusCode !== undefined) {
      // Deepgram's error body: { err_code, err_msg, request_id }.
      const body = err.body as { err_msg?: unknown; err_code?: unknown } | undefined
      const detail = scrub(typeof body?.err_msg === 'string' ? body.err_msg : `HTTP ${err.statusCode}`, this.apiKey)
      return statusError(this.who, err.statusCode, detail)
    }
    if (err instanceof DeepgramError) {
      // No status: the request never got an answer (refused, reset, DNS).
      const cause = err.cause instanceof Error ? ` (${(err.cause as { code?: string }).code ?? err.cause.message})` : ''
      return new ProviderError('tts', 'tts_unavailable', `${this.who} could not be reached: ${scrub(err.message + cause, this.apiKey)}`, { retryable: true })
    }
    return new ProviderError(
      'tts',
      'tts_failed',
      `${this.who} broke off the audio stream: ${scrub(err instanceof Error ? err.message : String(err), this.apiKey)}`,
      { retryable: true },
    )
  }
}
