/**
 * What an attempt's result means for its run. The integration runner reports a failure as
 * "code: message" (api/integrations/service.ts runnerFor); the code decides whether waiting could
 * help: timeouts, unreachable hosts, rate limits and the provider's own 5xx are retried with
 * backoff, everything else (a refused destination, a missing credential, a bad channel, input the
 * action refuses) fails the run at once, for a person to fix and retry.
 */
import type { ToolOutcome } from '../../engine/graph-runtime/index.js'

/** Largest action output kept with an attempt (JSON text); a larger one is kept as an excerpt. */
export const MAX_OUTPUT_BYTES = 16 * 1024

const RETRYABLE_CODES = new Set([
  'timeout',
  'network',
  'ratelimited',
  'rate_limited',
  'RATE_LIMITS',
  // Slack's own outage and timeout names (https://api.slack.com/methods/chat.postMessage#errors).
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'internal_error',
])
// Codes whose message names the HTTP status: a 5xx or 429 is the provider's passing trouble.
const BY_STATUS = new Set(['http_status', 'invalid_response'])

export interface ActionFailure {
  code: string
  message: string
  retryable: boolean
}

export function failureOf(outcome: Extract<ToolOutcome, { ok: false }>): ActionFailure {
  const at = outcome.error.indexOf(': ')
  const code = at > 0 && at <= 80 && /^[\w.-]+$/.test(outcome.error.slice(0, at)) ? outcome.error.slice(0, at) : 'action_failed'
  const message = at > 0 && code !== 'action_failed' ? outcome.error.slice(at + 2) : outcome.error
  const status = /HTTP (\d{3})/.exec(message)?.[1]
  const retryable = RETRYABLE_CODES.has(code) || (BY_STATUS.has(code) && status !== undefined && (status === '429' || status.startsWith('5')))
  return { code, message: message.slice(0, 1000), retryable }
}

/** An output as stored: JSON text within MAX_OUTPUT_BYTES, else an excerpt that says it was cut. */
export function storedOutput(output: unknown): string | null {
  if (output === undefined || output === null) return null
  const text = JSON.stringify(output)
  if (Buffer.byteLength(text) <= MAX_OUTPUT_BYTES) return text
  return JSON.stringify({ truncated: true, excerpt: text.slice(0, MAX_OUTPUT_BYTES / 2) })
}
