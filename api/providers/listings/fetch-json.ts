/**
 * One bounded GET of a provider's listing endpoint. Written on the pool's fetch rather than each
 * SDK's list call so the answer is bounded (bytes read, items kept) before anything parses it: the
 * SDKs read a whole body of any size. The pool decides trust (the operator's pool, or the guarded
 * one that checks every connection of an organization's base URL) and never follows a redirect.
 */
import { DestinationRefusedError } from '../../../core/index.js'
import type { FallbackReason } from '../schema.js'

/** A listing that could not be used; `reason` is what the response's fallback_reason says. */
export class ListingError extends Error {
  constructor(
    readonly reason: Exclude<FallbackReason, 'no_credential'>,
    message: string,
  ) {
    super(message)
    this.name = 'ListingError'
  }
}

/** A real listing is tens of kB (Deepgram's, with every voice's metadata, is the largest). */
export const MAX_LISTING_BYTES = 2 * 1024 * 1024

export interface ListingRequest {
  url: string
  headers: Record<string, string>
  fetch: typeof globalThis.fetch
  signal: AbortSignal
}

function refusedIn(err: unknown): DestinationRefusedError | undefined {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DestinationRefusedError) return e
  }
  return undefined
}

/** The request's failure as a ListingError: timeout, refused destination, or any other upstream error. */
export function listingFailure(err: unknown, signal: AbortSignal): ListingError {
  if (err instanceof ListingError) return err
  if (signal.aborted) return new ListingError('timeout', 'The listing did not answer in time.')
  const refused = refusedIn(err)
  if (refused) return new ListingError('destination_refused', refused.message)
  return new ListingError('upstream_error', `The listing request failed (${(err as Error)?.message ?? String(err)}).`)
}

async function boundedText(res: Response, signal: AbortSignal): Promise<string> {
  const declared = Number(res.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > MAX_LISTING_BYTES) {
    await res.body?.cancel()
    throw new ListingError('upstream_error', `The listing is larger than ${MAX_LISTING_BYTES} bytes.`)
  }
  if (!res.body) return ''
  const reader = res.body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  const onAbort = () => void reader.cancel().catch(() => {})
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (signal.aborted) throw new ListingError('timeout', 'The listing did not answer in time.')
      if (done) break
      size += value.byteLength
      if (size > MAX_LISTING_BYTES) {
        await reader.cancel()
        throw new ListingError('upstream_error', `The listing is larger than ${MAX_LISTING_BYTES} bytes.`)
      }
      parts.push(value)
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
  return Buffer.concat(parts).toString('utf8')
}

/** GETs `url` and returns its JSON; throws ListingError for every way that can fail. */
export async function fetchListing(r: ListingRequest): Promise<unknown> {
  let text: string
  try {
    const res = await r.fetch(r.url, { method: 'GET', headers: { accept: 'application/json', ...r.headers }, signal: r.signal, redirect: 'error' })
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel()
      throw new ListingError('credential_rejected', `The provider refused the credential (${res.status}).`)
    }
    if (res.status !== 200) {
      await res.body?.cancel()
      throw new ListingError('upstream_error', `The listing answered ${res.status}.`)
    }
    text = await boundedText(res, r.signal)
  } catch (err) {
    throw listingFailure(err, r.signal)
  }
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new ListingError('upstream_error', 'The listing is not JSON.')
  }
}
