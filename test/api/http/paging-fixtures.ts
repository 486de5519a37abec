// Shared by the paged-list tests (not a test file: tap includes only *.test.ts).
import type { Test } from 'tap'
import type { Reply } from '../../helpers/app.js'

/** One row a test seeded, with what the list must order it by. */
export interface Seeded {
  id: string
  /** The list's primary sort key as stored (e.g. created_at in ms). */
  key: number
}

export interface PagedListCase {
  /** The list's path, with any fixed query it needs (`?archived=true`). */
  path: string
  /** A GET of the list as the organization under test. */
  get(url: string): Promise<Reply>
  /** The rows this organization can see, seeded before the checks run. */
  mine: Seeded[]
  /** Another organization's (or environment's) rows of the same kind: they must never appear. */
  theirs: Seeded[]
  defaultLimit: number
  maxLimit: number
  /** The id of a listed item. */
  idOf(item: unknown): string
  /** The list's documented order: by key, newest first unless `ascending`, ties by id. */
  ascending?: boolean
}

/** The expected order, computed from what was seeded, not from what the API answered. */
export function expectedOrder(c: Pick<PagedListCase, 'mine' | 'ascending'>): string[] {
  return [...c.mine].sort((x, y) => (x.key !== y.key ? (c.ascending ? x.key - y.key : y.key - x.key) : x.id < y.id ? -1 : x.id > y.id ? 1 : 0)).map((r) => r.id)
}

/** The URL of a `Link` header's relation, or undefined. */
export function linkOf(res: Reply, rel: string): string | undefined {
  const header = res.headers.get('link') ?? ''
  for (const part of header.split(',')) {
    const m = /^\s*<([^>]*)>\s*;\s*rel="([^"]+)"\s*$/.exec(part)
    if (m && m[2] === rel) return m[1]
  }
  return undefined
}

function withQuery(path: string, query: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}${query}`
}

/**
 * The paging contract every plain-array list keeps: a default page, a maximum, pages that
 * together hold each row exactly once in a stable order, 422 at the query field for a bad
 * `limit`/`offset`, and no row of another organization. Needs more seeded rows than `maxLimit`.
 */
export async function checkPagedList(t: Test, c: PagedListCase): Promise<void> {
  const order = expectedOrder(c)
  const total = order.length
  if (total <= c.maxLimit) throw new Error(`seed more than ${c.maxLimit} rows (got ${total})`)
  const ids = (res: Reply) => (res.body as unknown[]).map((item) => c.idOf(item))

  await t.test('without limit, the first page holds the default number of rows, newest first', async (t) => {
    const res = await c.get(c.path)
    t.equal(res.status, 200)
    t.same(ids(res), order.slice(0, c.defaultLimit))
    t.equal(res.headers.get('x-total-count'), String(total))
    const next = linkOf(res, 'next')
    t.ok(next, 'a Link rel="next" names the following page')
    t.match(next, new RegExp(`[?&]offset=${c.defaultLimit}(&|$)`))
    t.match(next, new RegExp(`[?&]limit=${c.defaultLimit}(&|$)`))
    t.equal(linkOf(res, 'prev'), undefined, 'the first page has no previous page')
  })

  await t.test('limit at the maximum returns that many rows; one more is 422 at query.limit', async (t) => {
    const res = await c.get(withQuery(c.path, `limit=${c.maxLimit}`))
    t.equal(res.status, 200)
    t.same(ids(res), order.slice(0, c.maxLimit))
    const over = await c.get(withQuery(c.path, `limit=${c.maxLimit + 1}`))
    t.equal(over.status, 422)
    t.same(
      over.body.detail.map((d: { loc: unknown }) => d.loc),
      [['query', 'limit']],
    )
  })

  await t.test('walking the Link rel="next" chain yields every row exactly once, in order', async (t) => {
    const seen: string[] = []
    let url: string | undefined = withQuery(c.path, 'limit=7')
    let pages = 0
    while (url !== undefined && pages <= total) {
      const res: Reply = await c.get(url)
      t.equal(res.status, 200, url)
      t.equal(res.headers.get('x-total-count'), String(total))
      seen.push(...ids(res))
      url = linkOf(res, 'next')
      pages++
    }
    t.equal(pages, Math.ceil(total / 7))
    t.same(seen, order)
    t.equal(new Set(seen).size, total, 'no row twice')
  })

  await t.test('an offset past the end is an empty page with the total and a previous link', async (t) => {
    const res = await c.get(withQuery(c.path, `offset=${total}`))
    t.equal(res.status, 200)
    t.same(res.body, [])
    t.equal(res.headers.get('x-total-count'), String(total))
    t.equal(linkOf(res, 'next'), undefined)
    t.match(linkOf(res, 'prev'), new RegExp(`[?&]offset=${total - c.defaultLimit}(&|$)`))
  })

  // A repeated key counts by its last value (api/http/parse.ts), so `limit=5&limit=0` is limit 0.
  await t.test('bad limit or offset is 422 pointing at the query field', async (t) => {
    const bad: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=2.5', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=', 'limit'],
      ['limit=5&limit=0', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=1.5', 'offset'],
      ['offset=x', 'offset'],
      ['offset=1000001', 'offset'],
    ]
    for (const [query, field] of bad) {
      const res = await c.get(withQuery(c.path, query))
      t.equal(res.status, 422, query)
      t.same(
        res.body.detail?.map((d: { loc: unknown }) => d.loc),
        [['query', field]],
        query,
      )
    }
  })

  await t.test('another organization’s rows never appear, on any page or in the total', async (t) => {
    const res = await c.get(withQuery(c.path, `limit=${c.maxLimit}&offset=0`))
    const rest = await c.get(withQuery(c.path, `limit=${c.maxLimit}&offset=${c.maxLimit}`))
    const listed = new Set([...ids(res), ...ids(rest)])
    t.ok(c.theirs.length > 0, 'the other organization has rows')
    for (const r of c.theirs) t.notOk(listed.has(r.id), `foreign row ${r.id}`)
    t.equal(res.headers.get('x-total-count'), String(total))
  })
}
