/**
 * What the OpenAI SDK or the event stream threw, as an `llm` ProviderError: a stable code, the HTTP
 * status the API should answer with (502: the provider failed or refused us; 503: try again
 * later), and whether retrying can help. Messages name the provider's host, never the API key.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai'
import { destinationRefusal } from '../../../../core/index.js'
import { isProviderError, ProviderError } from '../errors.js'

export interface ErrorContext {
  host: string
  apiKey: string
  attempt: number
  timeoutMs: number
}

/** Maps whatever the SDK or the stream threw to an `llm` ProviderError. */
export function llmFailure(err: unknown, ctx: ErrorContext): ProviderError<'llm'> {
  const at = `The LLM provider at ${ctx.host}`
  const base = { attempts: ctx.attempt }
  if (isProviderError(err, 'llm')) return err
  const refusal = destinationRefusal(err)
  // Never retried: the destination stays refused, and the key must not be offered to it again.
  if (refusal)
    return new ProviderError('llm', 'upstream_refused', `${at} is refused by the outbound guard: ${refusal.message}`, {
      ...base,
      status: 502,
      retryable: false,
    })
  if (err instanceof APIConnectionTimeoutError) return timeoutError(ctx, 'first')
  if (err instanceof APIConnectionError) {
    return new ProviderError('llm', 'upstream_error', `${at} could not be reached: ${scrub(causeText(err), ctx.apiKey)}`, {
      ...base,
      status: 502,
      retryable: true,
    })
  }
  if (err instanceof APIError) {
    const status = err.status as number | undefined
    const detail = scrub(upstreamMessage(err), ctx.apiKey)
    if (status === undefined) {
      // An error object sent inside the event stream.
      return new ProviderError('llm', 'upstream_error', `${at} reported an error mid-stream: ${detail}`, { ...base, status: 502, retryable: true })
    }
    const up = { ...base, upstreamStatus: status }
    if (status === 401 || status === 403) {
      // The provider's text may quote part of the key, so it is left out.
      return new ProviderError(
        'llm',
        'upstream_auth',
        `${at} refused the API key (HTTP ${status}); check the organization's openai credential or the platform's OpenAI key`,
        { ...up, status: 502, retryable: false },
      )
    }
    if (status === 429) {
      const retryAfterMs = retryAfter(err.headers)
      // Billing exhaustion is also a 429 at OpenAI, and no amount of waiting fixes it.
      const quota = err.code === 'insufficient_quota'
      return new ProviderError('llm', 'upstream_rate_limited', `${at} is rate limiting requests (HTTP 429): ${detail}`, {
        ...up,
        status: 503,
        retryable: !quota,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      })
    }
    if (status === 408) return timeoutError(ctx, 'first', status)
    if (status >= 500) {
      const overloaded = status === 503 || status === 529
      // An overloaded server may say when to come back, as a rate limiter does.
      const retryAfterMs = retryAfter(err.headers)
      return new ProviderError('llm', 'upstream_error', `${at} failed (HTTP ${status}): ${detail}`, {
        ...up,
        status: overloaded ? 503 : 502,
        retryable: true,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      })
    }
    return new ProviderError('llm', 'upstream_bad_request', `${at} refused the request (HTTP ${status}): ${detail}`, { ...up, status: 502, retryable: false })
  }
  if (err instanceof SyntaxError) {
    return new ProviderError('llm', 'upstream_error', `${at} sent a malformed event stream`, { ...base, status: 502, retryable: false })
  }
  // undici's "terminated" and friends: the connection broke while the body was streaming.
  const text = err instanceof Error ? causeText(err) : String(err)
  return new ProviderError('llm', 'upstream_error', `${at} broke off the response: ${scrub(text, ctx.apiKey)}`, { ...base, status: 502, retryable: true })
}

export function timeoutError(ctx: ErrorContext, phase: 'first' | 'idle', upstreamStatus?: number): ProviderError<'llm'> {
  const at = `The LLM provider at ${ctx.host}`
  const message = phase === 'first' ? `${at} sent no response within ${ctx.timeoutMs} ms` : `${at} stopped streaming for ${ctx.timeoutMs} ms`
  return new ProviderError('llm', 'upstream_timeout', message, {
    status: 503,
    retryable: true,
    attempts: ctx.attempt,
    ...(upstreamStatus ? { upstreamStatus } : {}),
  })
}

/** Retry-After as OpenAI sends it: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function retryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '')
  if (Number.isFinite(ms) && ms >= 0) return ms
  const raw = headers?.get('retry-after')
  if (!raw) return undefined
  const seconds = Number(raw)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(raw)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

function upstreamMessage(err: APIError): string {
  const body = err.error as { message?: unknown } | undefined
  // Without OpenAI's error body the SDK's message is "<status> <text>"; the status is shown already.
  const text = typeof body?.message === 'string' ? body.message : err.message.replace(/^\d{3} /, '')
  return text.length > 300 ? `${text.slice(0, 300)}…` : text
}

function causeText(err: Error): string {
  const cause = (err as { cause?: unknown }).cause
  const inner = cause instanceof Error ? ` (${(cause as { code?: string }).code ?? cause.message})` : ''
  return `${err.message}${inner}`
}

/** Removes the key, and anything shaped like a (masked) secret key, from provider text. */
function scrub(text: string, apiKey: string): string {
  let out = apiKey ? text.split(apiKey).join('[redacted]') : text
  out = out.replace(/\bsk-[\w*-]{4,}/g, '[redacted]')
  return out
}
