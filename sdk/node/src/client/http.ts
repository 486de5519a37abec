/** Turning a typed call into a fetch request, and a fetch response into data. No retries here. */

type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[]

/** `/workflows/{workflow_uuid}` with its parameters filled in, each encoded as one path segment. */
export function fillPath(template: string, params: Record<string, unknown> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params?.[name]
    if (v === undefined || v === null || v === '') throw new TypeError(`${template}: the path parameter ${name} is missing`)
    if (typeof v !== 'string' && typeof v !== 'number') throw new TypeError(`${template}: the path parameter ${name} must be a string or a number`)
    return encodeURIComponent(String(v))
  })
}

/** Form-style query: a list repeats its key; undefined and null are left out. */
export function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return ''
  const search = new URLSearchParams()
  for (const [key, raw] of Object.entries(query)) {
    const value = raw as QueryValue
    if (value === undefined || value === null) continue
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
        throw new TypeError(`the query parameter ${key} must be a string, a number, a boolean or a list of them`)
      }
      search.append(key, String(v))
    }
  }
  const s = search.toString()
  return s ? `?${s}` : ''
}

export interface EncodedBody {
  body: BodyInit | undefined
  contentType: string | undefined
}

/**
 * JSON unless the call says otherwise: FormData goes as multipart (fetch writes the boundary), a
 * raw body goes with the `contentType` it names.
 */
export function encodeBody(body: unknown, contentType: string | undefined): EncodedBody {
  if (body === undefined) return { body: undefined, contentType: undefined }
  if (typeof FormData !== 'undefined' && body instanceof FormData) return { body, contentType: undefined }
  if (contentType !== undefined) {
    if (typeof body === 'string' || body instanceof Blob || body instanceof ArrayBuffer) return { body, contentType }
    // A Buffer is a Uint8Array; fetch sends either as bytes.
    if (body instanceof Uint8Array) return { body: body as Uint8Array<ArrayBuffer>, contentType }
    throw new TypeError(`a ${contentType} body must be a Blob, a Uint8Array, an ArrayBuffer or a string`)
  }
  return { body: JSON.stringify(body), contentType: 'application/json' }
}

/** The body of an answer: JSON parsed, other text as text, nothing as undefined. */
export async function readBody(res: Response): Promise<unknown> {
  const text = await res.text()
  if (text === '') return undefined
  if (/\bjson\b/i.test(res.headers.get('content-type') ?? '')) {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return text
}
