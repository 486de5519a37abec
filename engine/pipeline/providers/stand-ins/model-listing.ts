/**
 * The providers' model listings as the stand-ins serve them: OpenAI's `GET /v1/models` (Bearer key,
 * `{ object: 'list', data: [{ id, object: 'model', created, owned_by }] }`) and Deepgram's
 * `GET /v1/models` (`Authorization: Token …`, `{ stt: [...], tts: [...] }` with each model's
 * `name`, `canonical_name`, `architecture`, `languages`, `version`, `uuid` and, for speech
 * recognition, `batch` / `streaming` / `formatted_output`; for voices, `metadata`). One log and
 * one failure queue per stand-in, apart from its other endpoints', so a test can count how many
 * listings reached the provider and make the next one fail or hang.
 */
import type http from 'node:http'
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'

/** One failure, used by the next listing request. */
export type ListingFailure =
  /** An error status with the provider's error body. */
  | { kind: 'status'; status: number }
  /** Accepts the request and never answers, not even headers. */
  | { kind: 'hang' }
  /** 200 with a body that is not the provider's shape (a proxy's HTML page, say). */
  | { kind: 'malformed' }

export interface ListingRequest {
  /** performance.now() when the request arrived. */
  receivedAt: number
  /** The Authorization header as sent (tests check whose key a listing used). */
  authorization: string | undefined
  authorized: boolean
  /** The query string, without `?` (Deepgram's `include_outdated`). */
  query: string
  /** The status answered; 0 when none was (a hang). */
  status: number
  failure: ListingFailure['kind'] | null
}

export interface ModelListing {
  requests: ListingRequest[]
  fail(...failures: ListingFailure[]): void
  /** Answers one listing request; `body` is asked only for a 200. */
  answer(req: http.IncomingMessage, res: http.ServerResponse, authorized: boolean, body: () => unknown): void
}

/** `errorBody(status, message)`: the provider's own error envelope. */
export function modelListing(errorBody: (status: number, message: string) => unknown): ModelListing {
  const requests: ListingRequest[] = []
  const failures: ListingFailure[] = []
  const send = (res: http.ServerResponse, record: ListingRequest, status: number, body: unknown) => {
    record.status = status
    const text = typeof body === 'string' ? body : JSON.stringify(body)
    res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json' }).end(text)
  }
  return {
    requests,
    fail: (...f) => failures.push(...f),
    answer(req, res, authorized, body) {
      const record: ListingRequest = {
        receivedAt: performance.now(),
        authorization: req.headers.authorization,
        authorized,
        query: (req.url ?? '').split('?')[1] ?? '',
        status: 0,
        failure: null,
      }
      requests.push(record)
      req.resume()
      if (!authorized) return send(res, record, 401, errorBody(401, 'Invalid credentials.'))
      const failure = failures.shift()
      record.failure = failure?.kind ?? null
      if (failure?.kind === 'hang') return
      if (failure?.kind === 'status') return send(res, record, failure.status, errorBody(failure.status, `Injected failure ${failure.status}.`))
      if (failure?.kind === 'malformed') return send(res, record, 200, '<html><body>Gateway login</body></html>')
      send(res, record, 200, body())
    },
  }
}

/** A Deepgram model record as `GET /v1/models` lists it. */
export interface DeepgramModelRecord {
  name: string
  canonical_name: string
  architecture: string
  languages: string[]
  version: string
  uuid: string
  batch?: boolean
  streaming?: boolean
  formatted_output?: boolean
  metadata?: { accent?: string; age?: string; color?: string; image?: string; sample?: string; tags?: string[]; use_cases?: string[] }
}

const stt = (canonical: string, architecture: string, languages: string[]): DeepgramModelRecord => ({
  name: canonical.replace(/^(nova-\d|nova|enhanced|base)-(.+)$/, '$2-$1'),
  canonical_name: canonical,
  architecture,
  languages,
  version: '2025-01-01.0',
  uuid: randomUUID(),
  batch: true,
  streaming: true,
  formatted_output: true,
})
const voice = (canonical: string, accent: string, tags: string[]): DeepgramModelRecord => ({
  name: canonical.split('-')[canonical.startsWith('aura-2-') ? 2 : 1]!,
  canonical_name: canonical,
  architecture: canonical.startsWith('aura-2-') ? 'aura-2' : 'aura',
  languages: canonical.endsWith('-es') ? ['es', 'es-ES'] : ['en', 'en-US'],
  version: '2025-04-07.0',
  uuid: randomUUID(),
  metadata: { accent, age: 'Adult', color: '#C8D7FF', image: '', sample: '', tags, use_cases: ['IVR', 'Customer service'] },
})

/** What the Deepgram stand-in lists unless told otherwise: a few of Deepgram's real records. */
export const DEFAULT_DEEPGRAM_MODELS: { stt: DeepgramModelRecord[]; tts: DeepgramModelRecord[] } = {
  stt: [
    stt('nova-3-general', 'nova-3', ['en', 'en-US', 'de', 'es', 'fr', 'tr', 'multi']),
    stt('nova-2-general', 'nova-2', ['en', 'en-US', 'tr', 'de']),
    stt('nova-2-phonecall', 'nova-2', ['en', 'en-US']),
  ],
  tts: [
    voice('aura-2-thalia-en', 'American', ['feminine', 'clear']),
    voice('aura-2-apollo-en', 'American', ['masculine', 'casual']),
    voice('aura-2-celeste-es', 'Colombian', ['feminine', 'warm']),
    voice('aura-asteria-en', 'American', ['feminine']),
  ],
}
