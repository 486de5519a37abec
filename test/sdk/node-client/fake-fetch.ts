// A scripted fetch for the client's unit tests (not a test file: tap includes only *.test.ts).

export interface SeenRequest {
  method: string
  url: string
  headers: Headers
  body: string | undefined
}

export type Scripted = { status: number; body?: unknown; headers?: Record<string, string> } | Error

/** Answers each request with the next scripted answer (an Error is thrown, as fetch does on a reset). */
export function fakeFetch(script: Scripted[]): { fetch: typeof fetch; seen: SeenRequest[] } {
  const seen: SeenRequest[] = []
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = init?.body
    seen.push({ method: init?.method ?? 'GET', url: String(input), headers: new Headers(init?.headers), body: typeof body === 'string' ? body : undefined })
    const next = script.shift()
    if (!next) throw new Error('fake fetch: no answer scripted for this request')
    if (next instanceof Error) throw next
    const text = next.body === undefined ? null : typeof next.body === 'string' ? next.body : JSON.stringify(next.body)
    const headers = { ...(typeof next.body === 'object' ? { 'content-type': 'application/json' } : {}), ...next.headers }
    return new Response(text, { status: next.status, headers })
  }
  return { fetch: fetch as typeof globalThis.fetch, seen }
}

/** Records the waits instead of waiting. */
export function recordSleeps(): { sleep: (ms: number) => Promise<void>; slept: number[] } {
  const slept: number[] = []
  return { slept, sleep: async (ms) => void slept.push(ms) }
}

export const errorBody = (code: string, message = 'm', requestId = 'req-1') => ({ error: { code, message, request_id: requestId } })
