import { ApiError } from './errors.js'

/**
 * A provider failure (the LLM client's typed error: code `upstream_*`, status 502/503) as the
 * spec's 502/503; anything else is returned unchanged. The provider's own text is not passed on:
 * the 5xx message says what happened without internals.
 */
export function upstreamApiError(err: unknown): unknown {
  if (err instanceof ApiError) return err
  const e = err as { code?: unknown; status?: unknown }
  if (typeof e.code !== 'string' || !e.code.startsWith('upstream')) return err
  return new ApiError(e.status === 503 || e.code === 'upstream_rate_limited' || e.code === 'upstream_timeout' ? 'service_unavailable' : 'upstream_error')
}
