import { ApiError } from './errors.js'

/** A provider asking for minutes is told to our caller as a minute: they can ask again then. */
export const MAX_RETRY_AFTER_S = 60

/**
 * A provider failure (the LLM client's typed error: code `upstream_*`, status 502/503) as the
 * spec's 502/503; anything else is returned unchanged. The provider's own text is not passed on:
 * the 5xx message says what happened without internals. A 503 carries Retry-After when the
 * provider said how long to wait and waiting can help.
 */
export function upstreamApiError(err: unknown): unknown {
  if (err instanceof ApiError) return err
  const e = err as { code?: unknown; status?: unknown; retryable?: unknown; retryAfterMs?: unknown }
  if (typeof e.code !== 'string' || !e.code.startsWith('upstream')) return err
  const unavailable = e.status === 503 || e.code === 'upstream_rate_limited' || e.code === 'upstream_timeout'
  if (!unavailable) return new ApiError('upstream_error')
  return new ApiError('service_unavailable', undefined, e.retryable === true ? retryAfterHeader(e.retryAfterMs) : {})
}

/** Whole seconds, rounded up so a caller never comes back early; at least 1, at most a minute. */
function retryAfterHeader(ms: unknown): Record<string, string> {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return {}
  return { 'Retry-After': String(Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(ms / 1000)))) }
}
