/**
 * `--configure`: stores the organization's deepgram and openai credentials through the API
 * (PUT /api/v1/credentials), pointing at the stand-ins. The API key goes into that request's
 * header and nowhere else: not printed, not stored, not in any message below.
 */
import { credentialBodies, type Endpoints } from './instructions.js'

export type Outcome = { ok: true; message: string } | { ok: false; message: string }

interface ErrorBody {
  error?: { code?: unknown; message?: unknown }
  detail?: unknown
}

const RANGE_HINT = 'start Ozan with OZAN_ALLOW_PRIVATE_CIDRS=127.0.0.0/8 (docs/configuration.md) so its outbound guard lets base URLs reach loopback'

/** What an answer of PUT /credentials means for the newcomer, in one sentence (pure). */
export function describeAnswer(provider: string, baseUrl: string, status: number, body: unknown): Outcome {
  const b = (body && typeof body === 'object' ? body : {}) as ErrorBody
  const code = typeof b.error?.code === 'string' ? b.error.code : null
  if (status === 200) return { ok: true, message: `stored the organization's ${provider} credential (base_url ${baseUrl})` }
  if (status === 401) return { ok: false, message: `the API refused the key (401${code ? ` ${code}` : ''}): check --api-key or OZAN_API_KEY` }
  if (status === 403)
    return { ok: false, message: `the key may not store credentials (403${code ? ` ${code}` : ''}): use a key of an owner or admin (credentials:write)` }
  if (status === 422) {
    const entries = Array.isArray(b.detail) ? (b.detail as Array<{ type?: unknown; msg?: unknown }>) : []
    const guard = entries.find((d) => d.type === 'destination_refused' || d.type === 'insecure_url')
    if (guard) return { ok: false, message: `the platform refused base_url ${baseUrl} (422 ${String(guard.type)}: ${String(guard.msg)}): ${RANGE_HINT}` }
    const first = entries[0]
    return { ok: false, message: `the API refused the ${provider} credential (422${first ? ` ${String(first.type)}: ${String(first.msg)}` : ''})` }
  }
  const message = typeof b.error?.message === 'string' ? `: ${b.error.message}` : ''
  return { ok: false, message: `PUT /api/v1/credentials for ${provider} answered ${status}${code ? ` ${code}` : ''}${message}` }
}

/** Stores both credentials, deepgram first; stops at the first failure. One outcome per request made. */
export async function configureCredentials(e: Endpoints, apiKey: string, fetchImpl: typeof fetch = fetch): Promise<Outcome[]> {
  const outcomes: Outcome[] = []
  for (const body of credentialBodies(e)) {
    let res: Response
    try {
      res = await fetchImpl(`${e.apiUrl}/api/v1/credentials`, {
        method: 'PUT',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      })
    } catch (err) {
      const why = (err as Error).name === 'TimeoutError' ? 'no answer within 10 s' : ((err as { cause?: Error }).cause?.message ?? (err as Error).message)
      outcomes.push({ ok: false, message: `cannot reach Ozan at ${e.apiUrl} (${why}): is it running? (--api-url sets where)` })
      return outcomes
    }
    const text = await res.text()
    let parsed: unknown = null
    try {
      parsed = JSON.parse(text)
    } catch {
      // Not JSON: described by its status alone.
    }
    const outcome = describeAnswer(body.provider, body.fields.base_url, res.status, parsed)
    outcomes.push(outcome)
    if (!outcome.ok) return outcomes
  }
  return outcomes
}
