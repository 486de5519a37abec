/**
 * The generic HTTP request: any method to any public http(s) URL (the SSRF guard decides what is
 * public; the operator's allow-list widens it), no credential. The response comes back bounded:
 * its body to MAX_RESPONSE_BYTES (`truncated` says when cut), its headers to the guard's limit.
 * Redirects are returned, not followed. A 2xx is ok; any other status is a failure that still
 * carries the response, so a graph can branch on it and a caller can read it.
 */
import { z } from 'zod'
import { defineAction, type IntegrationDef } from './action.js'

export const MAX_TIMEOUT_MS = 30_000
export const MAX_RESPONSE_BYTES = 64 * 1024
export const MAX_REQUEST_BODY_BYTES = 64 * 1024

// The transport sets these from the request itself; letting a caller set them would let the
// request say one thing and carry another. (The tool library refuses them at save too.)
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
])
/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
// A header value is Latin-1 without control characters (tab allowed): anything else would either
// inject a header line or be refused by node's HTTP client.
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

const HttpInput = z
  .object({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).default('GET'),
    url: z.string().max(2048).describe('http or https URL of a public host (private, loopback, link-local and metadata addresses are refused).'),
    headers: z
      .record(z.string(), z.string().max(8192).regex(HEADER_VALUE, 'Must be Latin-1 text without control characters'))
      .superRefine((h, ctx) => {
        if (Object.keys(h).length > 50) ctx.addIssue({ code: 'custom', message: 'At most 50 headers' })
        for (const name of Object.keys(h)) {
          if (!HEADER_NAME.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'Must be an HTTP header name' })
          else if (RESERVED_HEADERS.has(name.toLowerCase()))
            ctx.addIssue({ code: 'custom', path: [name], message: 'This header is set by the transport and cannot be given' })
        }
      })
      .optional(),
    body: z
      .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
      .optional()
      .describe('A string is sent as is; an object or array is sent as JSON (Content-Type application/json unless given).'),
    timeout_ms: z.coerce
      .number()
      .int()
      .min(100)
      .max(MAX_TIMEOUT_MS)
      .optional()
      .describe(`Deadline of the whole exchange, at most ${MAX_TIMEOUT_MS} ms (default: the operator's OZAN_INTEGRATION_TIMEOUT_MS).`),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.body !== undefined && (v.method === 'GET' || v.method === 'HEAD'))
      ctx.addIssue({ code: 'custom', path: ['body'], message: `A ${v.method} request has no body` })
    if (v.body !== undefined && Buffer.byteLength(typeof v.body === 'string' ? v.body : JSON.stringify(v.body)) > MAX_REQUEST_BODY_BYTES)
      ctx.addIssue({ code: 'custom', path: ['body'], message: `The body must be at most ${MAX_REQUEST_BODY_BYTES} bytes` })
  })

const request = defineAction({
  name: 'request',
  description: 'Send one HTTP request and return the response status, headers and body.',
  input: HttpInput,
  output: `{ status, headers, body, truncated }: body is parsed JSON when the response is JSON, else text; at most ${MAX_RESPONSE_BYTES} bytes are read (truncated: true when cut).`,
  async run(input, ctx) {
    const headers: Record<string, string> = { 'user-agent': 'Ozan-Integrations/1', ...input.headers }
    let body: string | undefined
    if (typeof input.body === 'string') body = input.body
    else if (input.body !== undefined) {
      body = JSON.stringify(input.body)
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json'
    }
    const res = await ctx.request(
      { method: input.method, url: input.url, headers, body },
      { timeoutMs: input.timeout_ms, maxResponseBytes: MAX_RESPONSE_BYTES },
    )
    const text = res.body.toString('utf8')
    let parsed: unknown = text
    if (!res.truncated && /^application\/(?:[\w.+-]+\+)?json/i.test(res.headers['content-type'] ?? '')) {
      try {
        parsed = JSON.parse(text)
      } catch {
        // Mislabelled JSON stays text.
      }
    }
    const output = { status: res.status, headers: res.headers, body: parsed, truncated: res.truncated }
    if (res.status >= 200 && res.status < 300) return { ok: true, output }
    return { ok: false, error: { code: 'http_status', message: `The server answered HTTP ${res.status}.` }, output }
  },
})

export const httpIntegration: IntegrationDef = {
  key: 'http',
  name: 'HTTP request',
  description: 'Call any public HTTP API (webhooks of your own systems, REST endpoints). No stored credential: pass any headers the target needs.',
  provider: null,
  actions: [request],
}
