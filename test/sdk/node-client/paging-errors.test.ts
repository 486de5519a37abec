import t from 'tap'
import { createOzanClient, OzanApiError } from '../../../sdk/node/src/index.js'
import { nextOffsetFromLink, pageOf } from '../../../sdk/node/src/client/paging.js'
import { errorBody, fakeFetch } from './fake-fetch.js'

// Paged lists come in two shapes here (api/http/paging.ts): a Page_X_ body {items,total,limit,offset},
// or a plain array with X-Total-Count and Link rel="next". Errors come as {error:{code,message,request_id}},
// as a 422 {detail:[…]}, or as the router's {detail:'Not Found'}.

const BASE = 'http://ozan.test'
const client = (script: Parameters<typeof fakeFetch>[0]) => {
  const f = fakeFetch(script)
  return { c: createOzanClient({ baseUrl: BASE, apiKey: 'ozk_x', environmentId: 'staging', fetch: f.fetch }), seen: f.seen }
}

t.test('Link rel="next": the offset of the next page, whatever the order or the quoting', async (t) => {
  t.equal(nextOffsetFromLink('</api/v1/sessions?limit=2&offset=4>; rel="next", </api/v1/sessions?limit=2&offset=0>; rel="prev"'), 4)
  t.equal(nextOffsetFromLink('</a?offset=0>; rel="prev", </a?limit=2&offset=6>; rel=next'), 6)
  t.equal(nextOffsetFromLink('<https://x.example/a?offset=8>; title="a, b"; rel="prefetch next"'), 8)
  t.equal(nextOffsetFromLink('</a?offset=2>; rel="prev"'), null)
  t.equal(nextOffsetFromLink('</a?offset=x>; rel="next"'), null)
  t.equal(nextOffsetFromLink(null), null)
  t.equal(nextOffsetFromLink('garbage'), null)
})

t.test('pageOf reads both shapes and never steps backwards or past an empty page', async (t) => {
  const h = (o: Record<string, string>) => new Headers(o)
  t.same(pageOf([1, 2], h({ 'x-total-count': '5', link: '</a?limit=2&offset=2>; rel="next"' }), 0, '/a'), { items: [1, 2], total: 5, offset: 0, nextOffset: 2 })
  t.same(pageOf([5], h({ 'x-total-count': '5', link: '</a?offset=2>; rel="prev"' }), 4, '/a'), { items: [5], total: 5, offset: 4, nextOffset: null })
  t.same(pageOf([1, 2], h({ 'x-total-count': '5' }), 0, '/a'), { items: [1, 2], total: 5, offset: 0, nextOffset: 2 }, 'no Link: the total decides')
  t.same(pageOf([1, 2], h({}), 0, '/a'), { items: [1, 2], total: null, offset: 0, nextOffset: null }, 'neither: one page')
  t.same(pageOf([1], h({ link: '</a?offset=3>; rel="next"' }), 3, '/a').nextOffset, null, 'a next link that does not move on')
  t.same(pageOf([], h({ 'x-total-count': '9' }), 4, '/a').nextOffset, null, 'an empty page ends the walk')
  t.same(pageOf({ items: ['a'], total: 3, limit: 1, offset: 1 }, h({}), 1, '/p'), { items: ['a'], total: 3, offset: 1, nextOffset: 2 })
  t.same(pageOf({ items: ['a'], total: 3, limit: 1, offset: 2 }, h({}), 2, '/p').nextOffset, null)
  t.throws(() => pageOf({ id: 1 }, h({}), 0, '/p'), TypeError)
})

t.test('paginate follows the pages lazily, keeping the filters and the page size', async (t) => {
  const { c, seen } = client([
    { status: 200, body: { items: [{ call_uuid: 'a' }, { call_uuid: 'b' }], total: 5, limit: 2, offset: 1 } },
    { status: 200, body: { items: [{ call_uuid: 'c' }, { call_uuid: 'd' }], total: 5, limit: 2, offset: 3 } },
  ])
  const got: string[] = []
  for await (const call of c.paginate('/api/v1/calls', { params: { query: { channel: 'chat', limit: 2, offset: 1 } } })) {
    got.push(call.call_uuid)
    if (got.length === 3) break
  }
  t.same(got, ['a', 'b', 'c'])
  t.same(
    seen.map((r) => r.url),
    [`${BASE}/api/v1/calls?channel=chat&limit=2&offset=1`, `${BASE}/api/v1/calls?channel=chat&limit=2&offset=3`],
    'the third page was never asked for',
  )
})

t.test('pages of an array list follow Link and report X-Total-Count', async (t) => {
  const { c, seen } = client([
    { status: 200, body: [{ id: '1' }, { id: '2' }], headers: { 'x-total-count': '3', link: '</api/v1/sessions?limit=2&offset=2>; rel="next"' } },
    { status: 200, body: [{ id: '3' }], headers: { 'x-total-count': '3', link: '</api/v1/sessions?limit=2&offset=0>; rel="prev"' } },
  ])
  const pages = []
  for await (const p of c.pages('/api/v1/sessions', { params: { query: { limit: 2 } } })) pages.push(p)
  t.same(pages, [
    { items: [{ id: '1' }, { id: '2' }], total: 3, offset: 0, nextOffset: 2 },
    { items: [{ id: '3' }], total: 3, offset: 2, nextOffset: null },
  ])
  t.equal(seen.length, 2)
})

t.test('every request carries X-API-Key, X-Environment-Id and the parameters encoded', async (t) => {
  const { c, seen } = client([
    { status: 200, body: { id: 'w' } },
    { status: 201, body: { id: 'w2' } },
  ])
  await c.GET('/api/v1/workflows/{workflow_uuid}', { params: { path: { workflow_uuid: 'a/b c' } }, headers: { 'Accept-Language': 'tr' } })
  t.equal(seen[0]!.url, `${BASE}/api/v1/workflows/a%2Fb%20c`, 'a path parameter is one segment')
  t.equal(seen[0]!.headers.get('x-api-key'), 'ozk_x')
  t.equal(seen[0]!.headers.get('x-environment-id'), 'staging')
  t.equal(seen[0]!.headers.get('accept-language'), 'tr')
  t.equal(seen[0]!.body, undefined)
  await c.POST('/api/v1/workflows', { body: { name: 'Ş agent' } })
  t.equal(seen[1]!.headers.get('content-type'), 'application/json')
  t.same(JSON.parse(seen[1]!.body!), { name: 'Ş agent' })
  await t.rejects(
    c.GET('/api/v1/workflows/{workflow_uuid}', { params: { path: { workflow_uuid: '' } } }),
    TypeError,
    'an empty path parameter is refused before sending',
  )
  t.equal(seen.length, 2)
})

t.test('errors: the API body, a 422, the router 404, and a body that is not the API', async (t) => {
  const { c } = client([
    { status: 404, body: errorBody('not_found', 'Not found.', 'rid-1'), headers: { 'x-request-id': 'rid-1' } },
    {
      status: 422,
      body: {
        detail: [
          { type: 'too_big', loc: ['query', 'limit'], msg: 'Too big: expected number to be <=100' },
          { type: 'invalid_value', loc: ['query', 'channel'], msg: 'Invalid option' },
        ],
      },
      headers: { 'x-request-id': 'rid-2' },
    },
    { status: 404, body: { detail: 'Not Found' }, headers: { 'x-request-id': 'rid-3' } },
    { status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } },
  ])
  const e1 = await c.GET('/api/v1/sessions').catch((e) => e)
  t.type(e1, OzanApiError)
  t.match(e1, { name: 'OzanApiError', status: 404, code: 'not_found', message: 'Not found.', request_id: 'rid-1', detail: undefined })
  const e2 = await c.GET('/api/v1/sessions').catch((e) => e)
  t.match(e2, {
    status: 422,
    code: 'validation_error',
    request_id: 'rid-2',
    message: 'Validation failed: query.limit: Too big: expected number to be <=100; query.channel: Invalid option',
  })
  t.same(
    e2.detail.map((d: { loc: unknown[] }) => d.loc),
    [
      ['query', 'limit'],
      ['query', 'channel'],
    ],
  )
  t.match(await c.GET('/api/v1/sessions').catch((e) => e), { status: 404, code: 'not_found', message: 'Not Found', request_id: 'rid-3' })
  const e4 = await c.GET('/api/v1/sessions', { retry: { maxRetries: 0 } }).catch((e) => e)
  t.match(e4, { status: 502, code: 'http_error', request_id: null, body: '<html>Bad gateway</html>' })
})
