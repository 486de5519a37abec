/**
 * The LLM provider: streaming chat completions with tool calling through the `openai` SDK, against
 * OpenAI or any compatible server (Ollama, vLLM, llama.cpp server …) by base URL.
 *
 * Retries are ours, not the SDK's (maxRetries: 0): only before anything was yielded, because a
 * retry after the first words would make the caller hear them twice.
 */
import { baseUrlHost, requireApiKey } from '../client-checks.js'
import { openAiClient } from '../openai-client.js'
import { providerConnections, type ProviderConnections } from '../connections.js'
import type OpenAI from 'openai'
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions'
import type { LlmChunk, LlmClient, LlmRequest } from '../../../graph-runtime/index.js'
import type { ProviderError } from '../errors.js'
import { type ErrorContext, llmFailure, timeoutError } from './errors.js'
import { ToolCallAssembler, toSdkMessages, toSdkTools } from './wire.js'

export interface OpenAiLlmOptions {
  apiKey: string
  /** Any OpenAI-compatible server, e.g. http://localhost:11434/v1 for Ollama. */
  baseURL: string
  /** Used when a request names no model. */
  model: string
  /** Until the first chunk arrives (response headers included). */
  timeoutMs: number
  /** Between two chunks once streaming; time spent waiting on the consumer does not count. */
  idleTimeoutMs: number
  /** Retries after the first attempt, on 429/5xx and connection failures. */
  maxRetries: number
  /**
   * Whether a timed-out attempt is retried too. Off by default: a caller already waited timeoutMs,
   * and a voice turn is better served by failing over than by waiting that long again.
   */
  retryOnTimeout: boolean
  /** Full-jitter exponential backoff: a random wait in [0, min(retryMaxDelayMs, retryBaseMs · 2^n)). */
  retryBaseMs: number
  retryMaxDelayMs: number
  /**
   * A Retry-After (on a 429 or 5xx) up to this long is waited out instead of the jittered backoff;
   * a longer one fails at once, carrying retryAfterMs for the caller's own Retry-After.
   */
  maxRetryAfterMs: number
  /** OpenAI's reasoning models want max_completion_tokens; many compatible servers know only max_tokens. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens'
  /**
   * The connection pool its requests go through. Default: the process pool, for the operator's
   * destinations (trusted); an organization's base URL gets a guarded pool (connections.ts).
   */
  connections?: ProviderConnections
  /** Told before each retry (for logs and metrics; the error's message never holds the key). */
  onRetry?: (info: { attempt: number; delayMs: number; error: ProviderError<'llm'> }) => void
}

export const DEFAULT_OPENAI_LLM_OPTIONS = {
  baseURL: 'https://api.openai.com/v1',
  model: 'gpt-4o-mini',
  timeoutMs: 10_000,
  idleTimeoutMs: 15_000,
  maxRetries: 2,
  retryOnTimeout: false,
  retryBaseMs: 250,
  retryMaxDelayMs: 4_000,
  maxRetryAfterMs: 5_000,
  maxTokensField: 'max_tokens',
} as const satisfies Omit<OpenAiLlmOptions, 'apiKey'>

type Attempt = { ok: true } | { ok: false; error: ProviderError<'llm'>; produced: boolean }

export class OpenAiLlm implements LlmClient {
  readonly options: Readonly<Omit<OpenAiLlmOptions, 'apiKey'>>
  private readonly apiKey: string
  private readonly host: string
  private readonly client: OpenAI
  private readonly connections: ProviderConnections

  constructor(options: Partial<OpenAiLlmOptions> & { apiKey: string }) {
    const { apiKey, ...rest } = { ...DEFAULT_OPENAI_LLM_OPTIONS, ...options }
    requireApiKey('OpenAiLlm', apiKey)
    const host = baseUrlHost('OpenAiLlm', rest.baseURL)
    for (const k of ['timeoutMs', 'idleTimeoutMs', 'maxRetries', 'retryBaseMs', 'retryMaxDelayMs', 'maxRetryAfterMs'] as const) {
      if (!Number.isFinite(rest[k]) || rest[k] < 0) throw new RangeError(`OpenAiLlm: ${k} must be a number ≥ 0`)
    }
    if (rest.timeoutMs <= 0 || rest.idleTimeoutMs <= 0) throw new RangeError('OpenAiLlm: timeouts must be > 0')
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

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmChunk> {
    const o = this.options
    const body: ChatCompletionCreateParamsStreaming = {
      model: request.model || o.model,
      messages: toSdkMessages(request.messages),
      stream: true,
      stream_options: { include_usage: true },
      temperature: request.temperature,
      // OpenAI refuses an empty tools array.
      ...(request.tools.length ? { tools: toSdkTools(request.tools) } : {}),
      ...(o.maxTokensField === 'max_tokens' ? { max_tokens: request.maxTokens } : { max_completion_tokens: request.maxTokens }),
    }
    for (let attempt = 1; ; attempt++) {
      signal.throwIfAborted()
      const result = yield* this.attempt(body, signal, attempt)
      if (result.ok) return
      const { error, produced } = result
      if (produced || !error.retryable || attempt > o.maxRetries) throw error
      if (error.code === 'upstream_timeout' && !o.retryOnTimeout) throw error
      let delayMs: number
      if (error.retryAfterMs !== undefined) {
        if (error.retryAfterMs > o.maxRetryAfterMs) throw error
        delayMs = error.retryAfterMs
      } else {
        delayMs = Math.floor(Math.random() * Math.min(o.retryMaxDelayMs, o.retryBaseMs * 2 ** (attempt - 1)))
      }
      o.onRetry?.({ attempt, delayMs, error })
      await sleep(delayMs, signal)
    }
  }

  /** One HTTP request; yields as it streams and reports a failure instead of throwing it. */
  private async *attempt(body: ChatCompletionCreateParamsStreaming, signal: AbortSignal, attempt: number): AsyncGenerator<LlmChunk, Attempt> {
    const ac = new AbortController()
    const onAbort = () => ac.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    const watchdog = new Watchdog(() => ac.abort())
    const ctx = (phase: 'first' | 'idle'): ErrorContext => ({
      host: this.host,
      apiKey: this.apiKey,
      attempt,
      timeoutMs: phase === 'first' ? this.options.timeoutMs : this.options.idleTimeoutMs,
    })
    const calls = new ToolCallAssembler()
    let produced = false
    let finished = false
    let usage: Extract<LlmChunk, { type: 'usage' }> | null = null
    /** The stream was read to its end: nothing left to close. */
    let complete = false
    try {
      watchdog.arm('first', this.options.timeoutMs)
      const stream = await this.client.chat.completions.create(body, { signal: ac.signal })
      for await (const chunk of stream) {
        watchdog.arm('idle', this.options.idleTimeoutMs)
        if (chunk.usage)
          usage = {
            type: 'usage',
            model: chunk.model || body.model,
            prompt_tokens: chunk.usage.prompt_tokens,
            completion_tokens: chunk.usage.completion_tokens,
          }
        const choice = chunk.choices[0]
        if (!choice) continue
        // A refusal is what the model says to the caller instead of an answer, so it is spoken too.
        const text = (choice.delta.content ?? '') + (choice.delta.refusal ?? '')
        if (text) {
          watchdog.pause()
          yield { type: 'text', text }
          produced = true
          watchdog.arm('idle', this.options.idleTimeoutMs)
        }
        if (choice.delta.tool_calls) calls.add(choice.delta.tool_calls)
        if (choice.finish_reason && !finished) {
          finished = true
          watchdog.pause()
          for (const call of calls.drain()) {
            yield { type: 'tool_call', ...call }
            produced = true
          }
          watchdog.arm('idle', this.options.idleTimeoutMs)
        }
      }
      complete = true
      // The SDK ends the iteration quietly when its request is aborted.
      signal.throwIfAborted()
      if (watchdog.fired && !finished) return { ok: false, error: timeoutError(ctx(watchdog.fired), watchdog.fired), produced }
      if (!finished) return { ok: false, error: llmFailure(new Error('the stream ended before the model finished'), ctx('first')), produced }
    } catch (err) {
      signal.throwIfAborted()
      // After the model finished, a lost usage chunk or [DONE] is not worth failing the turn for.
      if (!finished) {
        const error = watchdog.fired ? timeoutError(ctx(watchdog.fired), watchdog.fired) : llmFailure(err, ctx('first'))
        return { ok: false, error, produced }
      }
    } finally {
      watchdog.pause()
      signal.removeEventListener('abort', onAbort)
      // Closes the HTTP stream whatever else ended this attempt (a consumer's break included); not
      // a stream read to its end (http-stream.ts says what an abort costs).
      if (!complete) ac.abort()
    }
    if (usage) yield usage
    return { ok: true }
  }
}

/** One timer for "nothing arrived in time"; paused while the consumer holds a chunk. */
class Watchdog {
  fired: 'first' | 'idle' | null = null
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly onFire: () => void) {}

  arm(phase: 'first' | 'idle', ms: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.fired = phase
      this.onFire()
    }, ms)
  }

  pause(): void {
    clearTimeout(this.timer)
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
