import { baseUrlHost } from '../client-checks.js'
import { destinationRefusal } from '../../../../core/index.js'
/**
 * What the HTTP providers share: open a request, read its body as it streams, decode and resample,
 * yield. One place owns barge-in (the caller's signal aborts the request and the body), the
 * first-byte and idle timeouts (the SDKs' own timeouts stop at the response headers), and closing
 * the stream whatever ended the iteration.
 */
import { decodeSliced, type AudioDecoder } from './pcm-stream.js'
import { ProviderError } from '../errors.js'

export interface HttpAudioOptions {
  signal: AbortSignal
  /** Until the first body bytes. */
  timeoutMs: number
  /** Between two body reads; time the consumer holds a chunk does not count. */
  idleTimeoutMs: number
  /** "The OpenAI speech provider at api.openai.com": the start of every message. */
  who: string
  /** Maps what the SDK threw (status, connection) to a `tts` ProviderError. */
  toError(err: unknown): ProviderError<'tts'>
}

export async function* streamHttpAudio(
  open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array> | null>,
  decoder: AudioDecoder,
  o: HttpAudioOptions,
): AsyncGenerator<Int16Array> {
  o.signal.throwIfAborted()
  const ac = new AbortController()
  const onAbort = () => ac.abort(o.signal.reason)
  o.signal.addEventListener('abort', onAbort, { once: true })
  let fired: 'first' | 'idle' | null = null
  let timer: NodeJS.Timeout | undefined
  const arm = (phase: 'first' | 'idle', ms: number) => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      fired = phase
      ac.abort()
    }, ms)
  }
  /** The body was read to its end: the request is over and there is nothing to close. */
  let complete = false
  try {
    arm('first', o.timeoutMs)
    const body = await open(ac.signal)
    if (!body) throw new ProviderError('tts', 'tts_failed', `${o.who} answered without an audio body`, { retryable: true })
    const reader = body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      for await (const out of decodeSliced(decoder, value)) {
        clearTimeout(timer)
        yield out
      }
      arm('idle', o.idleTimeoutMs)
    }
    complete = true
    const tail = decoder.end()
    if (tail.length) yield tail
  } catch (err) {
    o.signal.throwIfAborted()
    if (fired === 'first') throw new ProviderError('tts', 'tts_timeout', `${o.who} sent no audio within ${o.timeoutMs} ms`, { retryable: true })
    if (fired === 'idle') throw new ProviderError('tts', 'tts_timeout', `${o.who} stopped streaming audio for ${o.idleTimeoutMs} ms`, { retryable: true })
    if (err instanceof ProviderError) throw err
    if (err instanceof RangeError) throw new ProviderError('tts', 'tts_failed', `${o.who} sent audio we cannot read: ${err.message}`, { retryable: false })
    throw o.toError(err)
  } finally {
    clearTimeout(timer)
    o.signal.removeEventListener('abort', onAbort)
    // Closes the HTTP stream whatever else ended the iteration (a consumer's break included). Not
    // after a whole body, where it closes nothing and still costs: each abort makes a DOMException
    // that the SDK and undici pass on until Node's stream code reads its stack, formatted through
    // the source maps tsx turns on (`npm start`), on the loop every call shares.
    if (!complete) ac.abort()
  }
}

/** Removes the key, and anything shaped like a secret key, from provider text. */
export function scrub(text: string, apiKey: string): string {
  const out = apiKey ? text.split(apiKey).join('[redacted]') : text
  return out.replace(/\bsk-[\w*-]{4,}/g, '[redacted]').slice(0, 300)
}

/** The status classes every HTTP TTS provider shares; `detail` is the provider's own (scrubbed) words. */
export function statusError(who: string, status: number, detail: string, quotaExhausted = false): ProviderError<'tts'> {
  if (status === 401 || status === 403) {
    // The provider's text may quote part of the key, so it is left out.
    return new ProviderError('tts', 'tts_failed', `${who} refused the API key (HTTP ${status})`, { retryable: false, upstreamStatus: status })
  }
  if (status === 408) return new ProviderError('tts', 'tts_timeout', `${who} timed out the request (HTTP 408)`, { retryable: true, upstreamStatus: status })
  if (status === 429)
    return new ProviderError('tts', 'tts_failed', `${who} is rate limiting requests (HTTP 429): ${detail}`, {
      retryable: !quotaExhausted,
      upstreamStatus: status,
    })
  if (status >= 500) return new ProviderError('tts', 'tts_failed', `${who} failed (HTTP ${status}): ${detail}`, { retryable: true, upstreamStatus: status })
  return new ProviderError('tts', 'tts_failed', `${who} refused the request (HTTP ${status}): ${detail}`, { retryable: false, upstreamStatus: status })
}

/** The outbound guard refused an organization's base URL: nothing was sent, and retrying cannot help. */
export function refusedError(who: string, err: unknown): ProviderError<'tts'> | null {
  const refusal = destinationRefusal(err)
  return refusal && new ProviderError('tts', 'tts_failed', `${who} is refused by the outbound guard: ${refusal.message}`, { retryable: false })
}

/** Validates a base URL up front, as constructors do, and returns its host for messages. */
export const hostOf = (ctor: string, baseURL: string): string => baseUrlHost(ctor, baseURL)
