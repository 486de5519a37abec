/**
 * Paging over the API's paged lists. Two shapes exist: the lists the spec pages itself (calls,
 * webhook deliveries, request logs) answer `{items, total, limit, offset}`; the others answer the
 * plain array the spec names, with `X-Total-Count` and an RFC 8288 `Link` (`rel="next"`).
 * Both take `limit` and `offset`. Pages are read one request at a time, as the caller iterates.
 */
import type { DataOf, OperationOf, PathsWith } from './types.js'

type QueryOf<Op> = Op extends { parameters: { query?: infer Q } } ? Exclude<Q, undefined> : never
type Paged<Q> = [Q] extends [never] ? false : 'offset' extends keyof Q ? ('limit' extends keyof Q ? true : false) : false

/** GET paths whose query takes `limit` and `offset` and whose answer is a list or a page of one. */
export type PagedPath<Paths> = {
  [P in PathsWith<Paths, 'get'>]: Paged<QueryOf<OperationOf<Paths, P, 'get'>>> extends true
    ? [ItemOf<DataOf<OperationOf<Paths, P, 'get'>>>] extends [never]
      ? never
      : P
    : never
}[PathsWith<Paths, 'get'>]

/** The row type of a list answer: the array's element, or the page's `items` element. */
export type ItemOf<D> = D extends readonly (infer I)[] ? I : D extends { items: readonly (infer I)[] } ? I : never

export interface Page<T> {
  items: T[]
  /** Every row the list's filters match, across pages; null when the server did not say. */
  total: number | null
  /** Where this page starts. */
  offset: number
  /** Where the next page starts; null on the last page. */
  nextOffset: number | null
}

/** The offset of the `rel="next"` link in a Link header, or null when there is none. */
export function nextOffsetFromLink(link: string | null): number | null {
  if (!link) return null
  for (const part of link.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part)
    if (!m) continue
    const rels = m[2]!
      .split(';')
      .map((p) => /^\s*rel\s*=\s*"?([^"]*)"?\s*$/i.exec(p)?.[1])
      .find((r) => r !== undefined)
    if (!rels?.toLowerCase().split(/\s+/).includes('next')) continue
    const offset = new URL(m[1]!, 'http://origin.invalid').searchParams.get('offset')
    return offset !== null && /^\d+$/.test(offset) ? Number(offset) : null
  }
  return null
}

/** One answer of a paged list as a Page; throws TypeError when the answer is not a list. */
export function pageOf<T>(data: unknown, headers: Headers, offset: number, path: string): Page<T> {
  if (Array.isArray(data)) {
    const countHeader = headers.get('x-total-count')
    const total = countHeader !== null && /^\d+$/.test(countHeader.trim()) ? Number(countHeader) : null
    const linked = nextOffsetFromLink(headers.get('link'))
    const next = linked ?? (total !== null && offset + data.length < total ? offset + data.length : null)
    return { items: data as T[], total, offset, nextOffset: progress(next, offset, data.length) }
  }
  const page = data as { items?: unknown; total?: unknown } | null
  if (page && Array.isArray(page.items) && typeof page.total === 'number') {
    const next = offset + page.items.length < page.total ? offset + page.items.length : null
    return { items: page.items as T[], total: page.total, offset, nextOffset: progress(next, offset, page.items.length) }
  }
  throw new TypeError(`GET ${path} did not answer a list or a page`)
}

/** A next page that does not move forward, or follows an empty page, would loop forever: stop instead. */
function progress(next: number | null, offset: number, count: number): number | null {
  return next !== null && next > offset && count > 0 ? next : null
}

/** Pages from the start offset on, fetching each only when the caller asks for it. */
export async function* walkPages<T>(
  start: number,
  fetchPage: (offset: number) => Promise<{ data: unknown; headers: Headers }>,
  path: string,
): AsyncGenerator<Page<T>, void, undefined> {
  let offset: number | null = start
  while (offset !== null) {
    const { data, headers } = await fetchPage(offset)
    const page: Page<T> = pageOf<T>(data, headers, offset, path)
    yield page
    offset = page.nextOffset
  }
}
