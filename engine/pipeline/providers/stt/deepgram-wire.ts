/**
 * Deepgram live (`/v1/listen`) messages to SttEvents, and its failures to `stt` ProviderErrors. Pure, so the
 * mapping is tested without a socket. Field names are Deepgram's (docs: "Live audio" → Results).
 */
import { ProviderError } from '../errors.js'
import { scrubSecret, type SttTranscript } from './types.js'

/** The parts of a `Results` message read here; the SDK types them as ListenV1Results. */
export interface DeepgramResults {
  type: 'Results'
  start: number
  duration: number
  is_final?: boolean
  speech_final?: boolean
  from_finalize?: boolean
  channel: { alternatives: Array<{ transcript: string }> }
}

export function isResults(m: unknown): m is DeepgramResults {
  const r = m as Partial<DeepgramResults> | null
  return !!r && r.type === 'Results' && typeof r.start === 'number' && Array.isArray(r.channel?.alternatives)
}

/**
 * One Results message as a transcript event, or null when it carries nothing to say. Interim
 * results become partials (empty ones dropped). Finals are kept even when empty only if they answer
 * a Finalize: the caller waits for that answer to know the utterance is complete, so it is marked
 * speech_final (the VAD, not Deepgram, ended the utterance).
 */
export function resultsToEvent(m: DeepgramResults): SttTranscript | null {
  const text = (m.channel.alternatives[0]?.transcript ?? '').trim()
  const start_ms = Math.round(m.start * 1000)
  const end_ms = Math.round((m.start + m.duration) * 1000)
  if (!m.is_final) return text ? { type: 'partial', text, start_ms, end_ms } : null
  const speech_final = m.speech_final === true || m.from_finalize === true
  if (!text && !m.from_finalize) return null
  return { type: 'final', text, start_ms, end_ms, speech_final }
}

const at = (host: string) => `Deepgram at ${host}`

/**
 * A failed connection attempt. `ws` reports a refused upgrade as "Unexpected server response: 401";
 * the SDK reports its connect timer as "TIMEOUT".
 */
/** The outbound guard refused the destination: nothing was sent, and trying again cannot help. */
export function refusedError(refusal: Error, host: string): ProviderError<'stt'> {
  return new ProviderError('stt', 'stt_failed', `${at(host)} is refused by the outbound guard: ${refusal.message}`, { retryable: false })
}

export function connectError(message: string, host: string, apiKey: string): ProviderError<'stt'> {
  const status = /Unexpected server response: (\d{3})/.exec(message)?.[1]
  if (status) {
    const s = Number(status)
    if (s === 401 || s === 403) {
      return new ProviderError('stt', 'stt_auth', `${at(host)} refused the API key (HTTP ${s}); check the organization's deepgram credential`, {
        retryable: false,
        upstreamStatus: s,
      })
    }
    if (s === 429 || s >= 500)
      return new ProviderError('stt', 'stt_unavailable', `${at(host)} is unavailable (HTTP ${s})`, { retryable: true, upstreamStatus: s })
    // 400: a query parameter it does not accept (model, language …); retrying the same will not help.
    return new ProviderError('stt', 'stt_failed', `${at(host)} refused the connection (HTTP ${s})`, { retryable: false, upstreamStatus: s })
  }
  if (message === 'TIMEOUT') return new ProviderError('stt', 'stt_timeout', `${at(host)} did not accept the connection in time`, { retryable: true })
  return new ProviderError('stt', 'stt_unavailable', `${at(host)} could not be reached: ${scrubSecret(message, apiKey)}`, { retryable: true })
}

/**
 * The server closed an open stream that we had not asked to close. Deepgram closes with 1008 for
 * audio it cannot decode (DATA-0000), 1011 for its own failures and for no audio in 10 s (NET-0000,
 * NET-0001); 4001/4003 are used for credentials revoked or lacking permission mid-session.
 */
export function closeError(code: number, reason: string, host: string, apiKey: string): ProviderError<'stt'> {
  const why = reason ? `: ${scrubSecret(reason, apiKey).slice(0, 200)}` : ''
  if (code === 4001 || code === 4003 || code === 4401 || code === 4403) {
    return new ProviderError('stt', 'stt_auth', `${at(host)} revoked the session (close ${code})${why}`, { retryable: false, upstreamStatus: code })
  }
  if (code === 1008)
    return new ProviderError('stt', 'stt_failed', `${at(host)} rejected the audio (close ${code})${why}`, { retryable: false, upstreamStatus: code })
  return new ProviderError('stt', 'stt_failed', `${at(host)} closed the stream (close ${code})${why}`, { retryable: true, upstreamStatus: code })
}
