import t, { type Test } from 'tap'
import { z } from 'zod'
import type Router from '@koa/router'
import { ApiError, defineRoute, type AnyRoute } from '../../../api/index.js'
import { startTestApp, type Reply, type TestApp } from '../../helpers/app.js'
import { PARAM_FIXTURES, REQUEST_SAMPLES, createKey, newOwner, type RequestSample } from '../../helpers/tenancy-fixtures.js'

// The spec: "A resource that belongs to another organization returns 404", and the issue: that
// 404 is byte-identical (but for request_id) to the one for an id that names nothing. The cases
// come from the router itself, so a route added by a later issue joins the matrix on its own, and
// the matrix fails until the route's parameters and body have fixtures.

interface Case {
  label: string
  method: string
  path: string
  params: string[]
  route: AnyRoute | undefined
}

const koaPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1')
type Auth = { token: string } | { apiKey: string }

/** Every router layer with a path parameter, × each of its methods but HEAD (GET's echo). */
function parameterisedCases(router: Router, routes: readonly AnyRoute[]): Case[] {
  return router.stack
    .filter((layer) => layer.paramNames.length > 0)
    .flatMap((layer) =>
      layer.methods
        .filter((m) => m !== 'HEAD')
        .map((method) => {
          const path = String(layer.path)
          const route = routes.find((r) => r.method.toUpperCase() === method && koaPath(r.path) === path)
          return { label: `${method} ${path}`, method, path, params: layer.paramNames.map((k) => String(k.name)), route }
        }),
    )
}

const sampleFor = (c: Case): RequestSample | undefined => REQUEST_SAMPLES[c.route?.operationId ?? c.label] ?? REQUEST_SAMPLES[c.label]

/** Why a case cannot be run as it stands; empty when it can. */
function gaps(c: Case): string[] {
  const out: string[] = []
  const where = 'in test/helpers/tenancy-fixtures.ts'
  for (const p of c.params) if (!PARAM_FIXTURES[p]) out.push(`${c.label}: no PARAM_FIXTURES entry for path parameter "${p}" ${where}`)
  const sample = sampleFor(c)
  const r = c.route
  if (!r) {
    // Not a route definition: nothing tells what it needs, so someone must say (even `{}`).
    if (!sample) out.push(`${c.label}: not a route definition; add a REQUEST_SAMPLES entry "${c.label}" ${where}`)
    return out
  }
  if (r.body && !r.bodyOptional && r.bodyEncoding === 'raw') {
    if (!sample?.raw) out.push(`${c.label} (${r.operationId}): needs raw bytes (and their content-type header) in REQUEST_SAMPLES ${where}`)
  } else if (r.body && !r.bodyOptional) {
    if (sample?.body === undefined) out.push(`${c.label} (${r.operationId}): needs a valid body in REQUEST_SAMPLES ${where}`)
    else if (!r.body.safeParse(sample.body).success) out.push(`${c.label} (${r.operationId}): the REQUEST_SAMPLES body no longer validates`)
  }
  if (r.query && !r.query.safeParse(sample?.query ?? {}).success) out.push(`${c.label} (${r.operationId}): needs a valid query in REQUEST_SAMPLES ${where}`)
  if (r.headers && !r.headers.safeParse(sample?.headers ?? {}).success)
    out.push(`${c.label} (${r.operationId}): needs valid headers in REQUEST_SAMPLES ${where}`)
  return out
}

function send(a: TestApp, c: Case, ids: Record<string, string>, auth: Auth): Promise<Reply> {
  const sample = sampleFor(c)
  const path = c.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(ids[name]!))
  const qs = sample?.query ? `?${new URLSearchParams(sample.query)}` : ''
  return a.request(c.method, path + qs, { ...auth, body: sample?.body, raw: sample?.raw, headers: sample?.headers })
}

const headersBut = (r: Reply) => [...r.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id')

async function setup(t: Test) {
  const a = await startTestApp()
  t.teardown(() => a.close())
  return { a, ownerA: await newOwner(a), ownerB: await newOwner(a) }
}

/**
 * Runs every case as one caller of org A against org B's resources and unknown ids; returns what
 * went wrong, each message naming the route.
 */
async function runMatrix(a: TestApp, cases: Case[], auth: Auth, own: (p: string) => Promise<string>, foreign: Record<string, string>) {
  const failures: string[] = []
  const expect = (ok: boolean, what: string) => void (ok || failures.push(what))
  for (const c of cases) {
    const sessionOnly = c.route?.auth === 'S' && 'apiKey' in auth
    const expected = sessionOnly ? { status: 403, code: 'user_session_required' } : { status: 404, code: 'not_found' }
    // Each parameter in turn is foreign (or unknown) while any others name org A's own resources.
    for (const target of c.params) {
      const base: Record<string, string> = {}
      for (const p of c.params) if (p !== target) base[p] = await own(p)
      const label = c.params.length > 1 ? `${c.label} [${target}]` : c.label
      const theirs = await send(a, c, { ...base, [target]: foreign[target]! }, auth)
      const unknown = await send(a, c, { ...base, [target]: PARAM_FIXTURES[target]!.unknown() }, auth)
      for (const [kind, r] of [
        ["another organization's id", theirs],
        ['an unknown id', unknown],
      ] as const) {
        expect(
          r.status === expected.status && r.body?.error?.code === expected.code,
          `${label} with ${kind}: expected ${expected.status} ${expected.code}, got ${r.status} ${r.text}`,
        )
        expect(r.body?.error?.request_id === r.headers.get('x-request-id'), `${label} with ${kind}: error.request_id is not X-Request-ID`)
      }
      const bytes = (r: Reply) => r.text.replace(r.body?.error?.request_id ?? '\0', '<request_id>')
      expect(bytes(theirs) === bytes(unknown), `${label}: bodies differ beyond request_id: ${theirs.text} vs ${unknown.text}`)
      expect(
        JSON.stringify(headersBut(theirs)) === JSON.stringify(headersBut(unknown)),
        `${label}: response headers differ (content-type ${theirs.headers.get('content-type')} vs ${unknown.headers.get('content-type')})`,
      )
    }
  }
  return failures
}

t.test("every route with an id answers another organization's id exactly like an unknown id", async (t) => {
  const { a, ownerA, ownerB } = await setup(t)
  const cases = parameterisedCases(a.app.router, a.app.routes)
  const known = [
    'DELETE /api/v1/api-keys/:key_id',
    'GET /api/v1/projects/:project_uuid/environments',
    'PATCH /api/v1/rbac/roles/:role_id',
    'DELETE /api/v1/rbac/members/:user_id',
  ]
  for (const label of known)
    t.ok(
      cases.some((c) => c.label === label),
      `the router enumeration sees ${label}`,
    )
  t.notOk(
    cases.some((c) => c.method === 'HEAD'),
    'HEAD is left out',
  )

  const problems = cases.flatMap(gaps)
  t.same(problems, [], 'every parameterised route has fixtures and a valid request sample')
  if (problems.length) return

  const params = [...new Set(cases.flatMap((c) => c.params))]
  const foreign: Record<string, string> = {}
  for (const p of params) foreign[p] = await PARAM_FIXTURES[p]!.create(a, ownerB)
  const ownIds = new Map<string, Promise<string>>()
  const own = (p: string) => ownIds.get(p) ?? ownIds.set(p, PARAM_FIXTURES[p]!.create(a, ownerA)).get(p)!
  const key = await createKey(a, ownerA)

  t.same(await runMatrix(a, cases, { token: ownerA.token }, own, foreign), [], "as org A's owner (bearer token)")
  t.same(await runMatrix(a, cases, { apiKey: key.key }, own, foreign), [], "with org A's API key")

  for (const p of params) t.ok(await PARAM_FIXTURES[p]!.exists(a, ownerB, foreign[p]!), `org B's ${p} survived the matrix`)
})

t.test('the matrix fails for a parameterised route it has no fixture or body for', async (t) => {
  const a = await startTestApp({
    extraRoutes: () => [
      defineRoute({
        operationId: 'widgets_get',
        method: 'get',
        path: '/api/v1/widgets/{widget_id}',
        auth: 'A',
        tag: 'Test',
        summary: 'x',
        params: z.object({ widget_id: z.uuid() }),
        status: 200,
        response: z.object({}),
        handler: () => ({}),
      }),
      defineRoute({
        operationId: 'keys_rename',
        method: 'put',
        path: '/api/v1/api-keys/{key_id}/name',
        auth: 'A',
        tag: 'Test',
        summary: 'x',
        audit: { action: 'api_key.renamed', resource: 'api_key' },
        params: z.object({ key_id: z.uuid() }),
        body: z.object({ name: z.string() }),
        status: 204,
        handler: () => undefined,
      }),
    ],
  })
  t.teardown(() => a.close())
  const problems = parameterisedCases(a.app.router, a.app.routes).flatMap(gaps)
  t.match(problems, [
    /GET \/api\/v1\/widgets\/:widget_id: no PARAM_FIXTURES entry for path parameter "widget_id"/,
    /PUT \/api\/v1\/api-keys\/:key_id\/name \(keys_rename\): needs a valid body/,
  ])
  t.equal(problems.length, 2)
})

t.test('the matrix catches a route that tells a foreign id from an unknown one', async (t) => {
  // A deliberately leaky nested route: 403 for another organization's key, 404 for a missing one.
  let a: TestApp | undefined
  const leaky = defineRoute({
    operationId: 'project_key_peek',
    method: 'get',
    path: '/api/v1/projects/{project_uuid}/keys/{key_id}',
    auth: 'A',
    tag: 'Test',
    summary: 'x',
    params: z.object({ project_uuid: z.uuid(), key_id: z.uuid() }),
    status: 200,
    response: z.object({}),
    handler: ({ auth, params }) => {
      if (!a!.services.repos.projects.get(auth.organizationId, params.project_uuid)) throw new ApiError('not_found')
      const row = a!.db.prepare('SELECT organization_id FROM api_keys WHERE id = ?').get(params.key_id) as { organization_id: string } | undefined
      if (!row) throw new ApiError('not_found')
      if (row.organization_id !== auth.organizationId) throw new ApiError('permission_denied')
      return {}
    },
  })
  a = await startTestApp({ extraRoutes: () => [leaky] })
  t.teardown(() => a!.close())
  const ownerA = await newOwner(a)
  const ownerB = await newOwner(a)
  const cases = parameterisedCases(a.app.router, a.app.routes).filter((c) => c.route === leaky)
  t.equal(cases.length, 1, 'the extra route is enumerated from the router')
  const foreign = { project_uuid: await PARAM_FIXTURES.project_uuid!.create(a, ownerB), key_id: await PARAM_FIXTURES.key_id!.create(a, ownerB) }
  const own = (p: string) => PARAM_FIXTURES[p]!.create(a!, ownerA)
  const failures = await runMatrix(a, cases, { token: ownerA.token }, own, foreign)
  t.match(failures, [
    /^GET \/api\/v1\/projects\/:project_uuid\/keys\/:key_id \[key_id\] with another organization's id: expected 404 not_found, got 403/,
    /\[key_id\]: bodies differ beyond request_id/,
  ])
  t.notOk(
    failures.some((f) => f.includes('[project_uuid]')),
    'the project parameter, which is checked properly, passes',
  )
})
