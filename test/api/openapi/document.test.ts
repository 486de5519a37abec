import t from 'tap'
import { Validator } from '@seriousme/openapi-schema-validator'
import type Router from '@koa/router'
import { startTestApp } from '../../helpers/app.js'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

const app = await startTestApp()
t.teardown(() => app.close())
const res = await app.request('GET', '/api/v1/openapi.json')
const doc = res.body as Json

/** Every operation of the document as [path, method, operation]. */
function operations(d: Json): [string, string, Json][] {
  return Object.entries(d.paths as Json).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m): [string, string, Json] => [path, m, item[m]]))
}

/** "METHOD /koa/:path" for each /api/v1 route the router serves, HEAD and the document itself aside. */
function served(router: Router): string[] {
  const out = new Set<string>()
  for (const layer of router.stack) {
    // A RegExp path cannot be documented; String() keeps it in the set so the comparison fails.
    const path = String(layer.path)
    if (!path.startsWith('/api/v1') || path === '/api/v1/openapi.json') continue
    for (const m of layer.methods) if (m !== 'HEAD') out.add(`${m} ${path}`)
  }
  return [...out].sort()
}

function documented(d: Json): string[] {
  return operations(d)
    .map(([path, method]) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`)
    .sort()
}

const authOf = new Map(app.app.routes.map((r) => [r.operationId, r]))

t.test('the document is served as JSON and is a valid OpenAPI 3.1 document', async (t) => {
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^application\/json/)
  const validator = new Validator()
  const result = await validator.validate(structuredClone(doc))
  t.same(result.errors, undefined, 'no schema errors')
  t.ok(result.valid)
  t.equal(validator.version, '3.1')
  const broken = structuredClone(doc)
  broken.paths['/api/v1/broken'] = { get: { responses: 'none' } }
  t.equal((await new Validator().validate(broken)).valid, false, 'the validator does reject a bad document')
  t.match(doc.openapi, /^3\.1\.\d+$/)
  t.equal(doc.info.version, '0.1.0')
  t.type(doc.info.title, 'string')
})

t.test('both security schemes are declared as the spec names them', async (t) => {
  t.match(doc.components.securitySchemes.BearerAuth, { type: 'http', scheme: 'bearer' })
  t.match(doc.components.securitySchemes.ApiKeyAuth, { type: 'apiKey', in: 'header', name: 'X-API-Key' })
})

t.test('each operation lists the security its Auth column calls for', async (t) => {
  const expected = { A: [{ BearerAuth: [] }, { ApiKeyAuth: [] }], S: [{ BearerAuth: [] }], P: [] }
  const ops = operations(doc)
  t.ok(ops.length >= 12)
  for (const [path, method, op] of ops) {
    const route = authOf.get(op.operationId)
    t.ok(route, `${op.operationId} is a mounted route`)
    t.same(op.security, expected[route!.auth as 'A' | 'S' | 'P'], `${method} ${path} (${route!.auth})`)
  }
  // Spot checks against the spec's table, independent of the route objects.
  const byId = new Map(ops.map(([, , op]) => [op.operationId as string, op]))
  t.same(byId.get('auth_register')?.security, [])
  t.same(byId.get('auth_me')?.security, expected.A)
  t.same(byId.get('auth_logout')?.security, expected.S)
})

t.test('every operation declares its success status and 422', async (t) => {
  const ids = new Set<string>()
  for (const [path, method, op] of operations(doc)) {
    const route = authOf.get(op.operationId)!
    t.notOk(ids.has(op.operationId), `${op.operationId} is unique`)
    ids.add(op.operationId)
    const success = op.responses[String(route.status)]
    t.ok(success, `${method} ${path} declares ${route.status}`)
    if (route.status === 204) t.notOk(success?.content, '204 has no body')
    else t.ok(success?.content?.['application/json']?.schema, `${route.status} has a JSON schema`)
    t.same(op.responses['422']?.content?.['application/json']?.schema, { $ref: '#/components/schemas/HTTPValidationError' })
    if (route.auth !== 'P') t.ok(op.responses['401'], `${op.operationId} declares 401`)
    t.equal(Boolean(op.requestBody), Boolean(route.body), `${op.operationId} requestBody iff it takes a body`)
  }
})

t.test('path templates and path parameters agree', async (t) => {
  for (const [path, , op] of operations(doc)) {
    t.ok(path.startsWith('/api/v1/'), `${path} is under /api/v1`)
    const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
    const declared = (op.parameters as Json[]).filter((p) => p.in === 'path')
    t.same(declared.map((p) => p.name).sort(), templated, `${op.operationId} path parameters`)
    for (const p of declared) t.equal(p.required, true)
  }
})

t.test('the named components exist', async (t) => {
  const names = Object.keys(doc.components.schemas)
  for (const name of ['RegisterRequest', 'TokenResponse', 'UserResponse', 'HTTPValidationError', 'ErrorResponse']) {
    t.ok(names.includes(name), name)
  }
  t.match(doc.components.schemas.ErrorResponse, { properties: { error: { properties: { code: {}, message: {}, request_id: {} } } } })
})

t.test('every $ref resolves to an existing component', async (t) => {
  const refs: string[] = []
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk)
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref') refs.push(v as string)
        else walk(v)
      }
    }
  }
  walk(doc)
  t.ok(refs.length > 10, 'the document does use references')
  for (const ref of new Set(refs)) {
    const m = /^#\/components\/schemas\/([^/]+)$/.exec(ref)
    t.ok(m, `${ref} points into components/schemas`)
    t.ok(m && doc.components.schemas[m[1]!], `${ref} exists`)
  }
})

t.test('the router and the document describe the same operations', async (t) => {
  const routes = served(app.app.router)
  t.ok(routes.length >= 12, 'the router serves the API')
  t.same(routes, documented(doc))
  t.ok(routes.includes('DELETE /api/v1/api-keys/:key_id'), 'path parameters are compared in Koa form')
})

t.test('the comparison notices a route on either side only', async (t) => {
  const other = await startTestApp()
  t.teardown(() => other.close())
  const before = documented(other.app.openapi())
  other.app.router.get('/api/v1/undocumented', (ctx) => (ctx.body = {}))
  t.notSame(served(other.app.router), before, 'a served route missing from the document is caught')
  const ghost = structuredClone(doc)
  ghost.paths['/api/v1/ghost/{ghost_id}'] = { put: { operationId: 'ghost', responses: {} } }
  t.notSame(served(app.app.router), documented(ghost), 'a documented route nobody serves is caught')
})
