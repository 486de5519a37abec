import t from 'tap'
import { startTestApp } from '../../helpers/app.js'

const app = await startTestApp()
t.teardown(() => app.close())

const KEY = '3f0c2a9e-8a51-4c4e-9d0e-2b1f7f4f6a10'
const allowOf = (h: Headers) =>
  (h.get('allow') ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
    .sort()

t.test('an unknown path is 404 { detail: "Not Found" }', async (t) => {
  const paths = ['/api/v1/nope', '/', '/api/v2/auth/me', '/api/v1/auth', '/api/v1/api-keys/a/b', '/api/v1/nope?x=1']
  for (const method of ['GET', 'POST', 'DELETE']) {
    for (const path of paths) {
      const res = await app.request(method, path)
      t.equal(res.status, 404, `${method} ${path}`)
      t.same(res.body, { detail: 'Not Found' })
      t.match(res.headers.get('content-type'), /^application\/json/)
      t.notOk(res.headers.has('allow'))
    }
  }
})

t.test('an unknown path is 404 even with a body and no credentials', async (t) => {
  const res = await app.request('POST', '/api/v1/agents', { body: { name: 'x' } })
  t.equal(res.status, 404)
  t.same(res.body, { detail: 'Not Found' })
})

t.test('a known path under the wrong method is 405 with Allow', async (t) => {
  const cases: [string, string, string[]][] = [
    ['POST', '/api/v1/auth/me', ['GET', 'HEAD']],
    ['DELETE', '/api/v1/auth/me', ['GET', 'HEAD']],
    ['GET', '/api/v1/auth/login', ['POST']],
    ['PUT', '/api/v1/api-keys', ['GET', 'HEAD', 'POST']],
    ['PATCH', '/api/v1/api-keys', ['GET', 'HEAD', 'POST']],
    ['GET', `/api/v1/api-keys/${KEY}`, ['DELETE']],
    ['PUT', '/api/v1/api-keys/anything', ['DELETE']],
    ['POST', '/api/v1/openapi.json', ['GET', 'HEAD']],
  ]
  for (const [method, path, allow] of cases) {
    const res = await app.request(method, path)
    t.equal(res.status, 405, `${method} ${path}`)
    t.same(res.body, { detail: 'Method Not Allowed' })
    t.same(allowOf(res.headers), allow, `Allow for ${path}`)
  }
})

t.test('405 is decided before authentication', async (t) => {
  const res = await app.request('DELETE', '/api/v1/api-keys', { token: 'not-a-token' })
  t.equal(res.status, 405)
  t.same(res.body, { detail: 'Method Not Allowed' })
})

t.test('the right method on a known path is not 404 or 405', async (t) => {
  t.equal((await app.request('GET', '/api/v1/auth/me')).status, 401)
  t.equal((await app.request('DELETE', `/api/v1/api-keys/${KEY}`)).status, 401)
  t.equal((await app.request('GET', '/api/v1/openapi.json')).status, 200)
})

t.test('OPTIONS on a known path answers 204 with Allow and no body', async (t) => {
  for (const [path, allow] of [
    ['/api/v1/auth/me', ['GET', 'HEAD']],
    ['/api/v1/api-keys', ['GET', 'HEAD', 'POST']],
    [`/api/v1/api-keys/${KEY}`, ['DELETE']],
  ] as const) {
    const res = await app.request('OPTIONS', path)
    t.equal(res.status, 204, path)
    t.same(allowOf(res.headers), allow)
    t.equal(res.text, '')
  }
})

t.test('OPTIONS on an unknown path is 404', async (t) => {
  const res = await app.request('OPTIONS', '/api/v1/nope')
  t.equal(res.status, 404)
  t.same(res.body, { detail: 'Not Found' })
})

t.test('HEAD on a GET route answers like GET, without a body', async (t) => {
  const get = await app.request('GET', '/api/v1/openapi.json')
  const head = await app.request('HEAD', '/api/v1/openapi.json')
  t.equal(head.status, 200)
  t.equal(head.text, '')
  t.equal(head.headers.get('content-type'), get.headers.get('content-type'))
  t.equal((await app.request('HEAD', '/api/v1/auth/me')).status, 401)
})

t.test('a resource 404 from a route uses the error envelope, unlike an unknown path', async (t) => {
  const { access_token } = await app.register()
  const res = await app.request('DELETE', `/api/v1/api-keys/${KEY}`, { token: access_token })
  t.equal(res.status, 404)
  t.equal(res.body.error.code, 'not_found')
  t.notOk('detail' in res.body)
})
