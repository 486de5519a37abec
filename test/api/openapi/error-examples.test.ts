import t from 'tap'
import { ERRORS } from '../../../api/http/errors.js'
import { startTestApp } from '../../helpers/app.js'

// Every operation's error responses name their codes and carry one example body per code, so a
// reader of /docs sees what each failure looks like. Checked against the route definitions (the
// codes each route declares) and against what the running API actually answers.

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

const app = await startTestApp()
t.teardown(() => app.close())
const doc = (await app.request('GET', '/api/v1/openapi.json')).body as Json
const byId = new Map<string, Json>()
for (const item of Object.values(doc.paths as Json)) for (const m of METHODS) if (item[m]) byId.set(item[m].operationId, item[m])

/** The error responses of an operation: every 4xx/5xx but the 422 validation shape. */
const errorResponses = (op: Json): [string, Json][] => Object.entries(op.responses as Json).filter(([s]) => Number(s) >= 400 && s !== '422')

t.test('each error response has one example per code its description names, with that code and its message', async (t) => {
  let examples = 0
  for (const [id, op] of byId) {
    for (const [status, response] of errorResponses(op)) {
      const media = response.content?.['application/json']
      t.same(media?.schema, { $ref: '#/components/schemas/ErrorResponse' }, `${id} ${status} schema`)
      const named = (response.description as string).split('; ').map((d) => d.split(' ')[0])
      t.same(Object.keys(media?.examples ?? {}), named, `${id} ${status}: an example per named code`)
      for (const [code, example] of Object.entries(media?.examples ?? {}) as [keyof typeof ERRORS, Json][]) {
        examples++
        t.equal(String(ERRORS[code][0]), status, `${id}: ${code} is a ${status}`)
        t.equal(example.value.error.code, code)
        t.equal(example.value.error.message, ERRORS[code][1])
        t.type(example.value.error.request_id, 'string')
      }
    }
  }
  t.ok(examples > byId.size * 2, `${examples} examples over ${byId.size} operations`)
})

t.test('every code a route declares is shown under its status', async (t) => {
  let declared = 0
  for (const route of app.app.routes) {
    const op = byId.get(route.operationId)!
    for (const code of route.errors ?? []) {
      declared++
      const status = String(ERRORS[code][0])
      t.ok(op.responses[status]?.content['application/json'].examples[code], `${route.operationId} shows ${code} under ${status}`)
    }
  }
  t.ok(declared > 20, `${declared} declared codes checked`)
})

t.test("spot check against the spec's statuses: GET /api/v1/workflows/{workflow_uuid}", async (t) => {
  const op = byId.get('workflows_get')!
  t.same(Object.keys(op.responses).sort(), ['200', '401', '403', '404', '422', '429'])
  t.same(Object.keys(op.responses['401'].content['application/json'].examples), ['authentication_required'])
  t.same(Object.keys(op.responses['403'].content['application/json'].examples), ['permission_denied'])
  t.match(op.responses['403'].description, /^permission_denied \(needs agents:read\)$/)
  t.same(Object.keys(op.responses['404'].content['application/json'].examples), ['not_found'])
  t.same(Object.keys(op.responses['429'].content['application/json'].examples), ['rate_limited'])
  t.match(op.responses['422'].content['application/json'].example, { detail: [{ type: 'missing', loc: ['body', 'name'], msg: 'Field required' }] })
})

t.test('the examples are what the API answers', async (t) => {
  const example = byId.get('workflows_list')!.responses['401'].content['application/json'].examples.authentication_required.value
  const res = await app.request('GET', '/api/v1/workflows')
  t.equal(res.status, 401)
  t.same({ ...res.body.error, request_id: 'x' }, { ...example.error, request_id: 'x' })
  const owner = await app.register()
  const missing = await app.request('GET', '/api/v1/workflows/00000000-0000-4000-8000-000000000000', { token: owner.access_token })
  t.equal(missing.status, 404)
  const notFound = byId.get('workflows_get')!.responses['404'].content['application/json'].examples.not_found.value
  t.same({ ...missing.body.error, request_id: 'x' }, { ...notFound.error, request_id: 'x' })
  // A body missing its required name fails as the 422 example does.
  const invalid = await app.request('POST', '/api/v1/workflows', { token: owner.access_token, body: {} })
  t.equal(invalid.status, 422)
  t.match(invalid.body, byId.get('workflows_create')!.responses['422'].content['application/json'].example)
})
