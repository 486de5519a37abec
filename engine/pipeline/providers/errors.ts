/**
 * Every provider failure (LLM, speech-to-text, text-to-speech) as data: which kind of provider
 * failed, a stable code, and whether trying again can help. The engine turns one into an error
 * frame with these fields; the API turns one into the spec's 502/503. The codes are on the wire
 * (protocol error events, call records), so they never change meaning.
 * Messages name the provider's host and what went wrong, never an API key.
 */

export type ProviderCategory = 'llm' | 'stt' | 'tts'

/** The codes each kind of provider fails with. */
export interface ProviderErrorCodes {
  /** upstream_refused: the outbound guard refused an organization's base URL; nothing was sent. */
  llm: 'upstream_error' | 'upstream_timeout' | 'upstream_rate_limited' | 'upstream_auth' | 'upstream_bad_request' | 'upstream_refused'
  /**
   * stt_unavailable: the provider could not be reached or is overloaded (retry or fail over);
   * stt_auth: the key was refused (retrying will not help); stt_timeout: nothing came back in time;
   * stt_failed: the provider broke off or refused the request.
   */
  stt: 'stt_unavailable' | 'stt_failed' | 'stt_timeout' | 'stt_auth'
  /**
   * tts_unavailable: the provider cannot be reached or run (binary missing, connection refused);
   * tts_failed: it answered with a failure or the request is invalid (bad voice, too long, 4xx/5xx);
   * tts_timeout: nothing (or nothing more) arrived in time.
   */
  tts: 'tts_unavailable' | 'tts_failed' | 'tts_timeout'
}

export type ProviderErrorCode<C extends ProviderCategory = ProviderCategory> = ProviderErrorCodes[C]

export interface ProviderErrorDetails {
  /** Whether the same request may succeed if tried again (or on another provider). */
  retryable: boolean
  /** The provider's HTTP status, or WebSocket close code, when it answered with one. */
  upstreamStatus?: number
  /**
   * The HTTP status the API answers with: 503 when trying again later can help, else 502 (the
   * provider failed or refused us). Defaults to 503 for a retryable failure or a timeout.
   */
  status?: 502 | 503
  /** How long the provider asked us to wait (Retry-After / retry-after-ms). */
  retryAfterMs?: number
  /** Requests made before giving up; 1 unless the client retried. */
  attempts?: number
}

export class ProviderError<C extends ProviderCategory = ProviderCategory> extends Error {
  override readonly name = 'ProviderError'
  readonly retryable: boolean
  readonly upstreamStatus: number | undefined
  readonly status: 502 | 503
  readonly retryAfterMs: number | undefined
  readonly attempts: number

  constructor(
    /** Which kind of provider failed. */
    readonly category: C,
    readonly code: ProviderErrorCode<C>,
    message: string,
    details: ProviderErrorDetails,
  ) {
    super(message)
    this.retryable = details.retryable
    this.upstreamStatus = details.upstreamStatus
    this.status = details.status ?? (details.retryable || code.endsWith('_timeout') ? 503 : 502)
    this.retryAfterMs = details.retryAfterMs
    this.attempts = details.attempts ?? 1
  }
}

/** A ProviderError, of the given category when one is named. */
export function isProviderError<C extends ProviderCategory>(err: unknown, category?: C): err is ProviderError<C> {
  return err instanceof ProviderError && (category === undefined || err.category === category)
}
