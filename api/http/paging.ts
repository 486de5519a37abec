import { z } from 'zod'
import type { RequestInfo } from './route.js'

/**
 * Paging of the lists the spec answers with a plain array. The array stays the body (the spec's
 * shape); the page is chosen with `limit`/`offset` query parameters and described by headers:
 * `X-Total-Count` (every matching row) and an RFC 8288 `Link` with `rel="next"` / `rel="prev"`.
 * The two lists the spec pages itself (calls, deliveries) answer `Page_X_` bodies instead.
 */
export interface PageLimits {
  /** Rows returned when the request names no `limit`. */
  defaultLimit: number
  /** The largest `limit` accepted; one more is 422 at `["query", "limit"]`. */
  maxLimit: number
}

/** The array lists' shared default, as `/sessions` and `/audit` had it before the others were paged. */
export const DEFAULT_PAGE_LIMITS: PageLimits = { defaultLimit: 50, maxLimit: 200 }
/**
 * A session's events: a long call writes several hundred (about five per turn), and a client reads
 * them as one transcript, so one page holds an ordinary call whole.
 */
export const DEFAULT_EVENT_PAGE_LIMITS: PageLimits = { defaultLimit: 500, maxLimit: 1000 }
/** SQLite still reads and skips every row before the offset; past this, narrow the list with a filter. */
export const MAX_PAGE_OFFSET = 1_000_000

export interface PageRequest {
  limit: number
  offset: number
}

export interface Page<T> {
  items: T[]
  /** Every row the list's filters match, across all pages. */
  total: number
}

/** The `limit` and `offset` fields of a list's zod query schema (they also describe the OpenAPI parameters). */
export function pageQuery(limits: PageLimits = DEFAULT_PAGE_LIMITS) {
  return {
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(limits.maxLimit)
      .default(limits.defaultLimit)
      .describe(
        `Rows per page: 1 to ${limits.maxLimit}, default ${limits.defaultLimit}. X-Total-Count gives every matching row; Link rel="next" the following page.`,
      ),
    offset: z.coerce.number().int().min(0).max(MAX_PAGE_OFFSET).default(0).describe(`Rows to skip: 0 to ${MAX_PAGE_OFFSET}, default 0.`),
  }
}

/** The sentence the list routes' OpenAPI descriptions share. */
export function pagingDescription(limits: PageLimits = DEFAULT_PAGE_LIMITS): string {
  return `Paged: limit 1–${limits.maxLimit} (default ${limits.defaultLimit}) and offset; the total is in X-Total-Count, the next and previous pages in Link.`
}

function pageUrl(requestUrl: string, at: PageRequest): string {
  const url = new URL(requestUrl, 'http://origin.invalid')
  url.searchParams.set('limit', String(at.limit))
  url.searchParams.set('offset', String(at.offset))
  return `${url.pathname}${url.search}`
}

/** Sets the page headers and returns the body: the page's rows as the plain array the spec names. */
export function arrayPage<T>(req: RequestInfo, page: Page<T>, at: PageRequest): T[] {
  req.setHeader('X-Total-Count', String(page.total))
  const links: string[] = []
  if (at.offset + page.items.length < page.total) {
    links.push(`<${pageUrl(req.url, { limit: at.limit, offset: at.offset + page.items.length })}>; rel="next"`)
  }
  if (at.offset > 0) {
    links.push(`<${pageUrl(req.url, { limit: at.limit, offset: Math.max(0, at.offset - at.limit) })}>; rel="prev"`)
  }
  if (links.length) req.setHeader('Link', links.join(', '))
  return page.items
}
