import t from 'tap'
import { startTestApp } from '../../helpers/app.js'

// The spec names the schemas of plans and flags: PlanResponse, FlagUpsert, FlagToggle, FlagResponse.

t.test('the OpenAPI document has the five operations with the spec’s schema names, permissions and statuses', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  // biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document, walked by path
  type Json = Record<string, any>
  const doc = (await a.request('GET', '/api/v1/openapi.json')).body as Json
  for (const name of ['PlanResponse', 'FlagUpsert', 'FlagToggle', 'FlagResponse']) t.ok(doc.components.schemas[name], `${name} is a component`)
  const op = (path: string, method: string) => doc.paths[path]?.[method]
  const ref = (o: Json | undefined, status: string) => JSON.stringify(o?.responses?.[status]?.content?.['application/json']?.schema)
  t.match(ref(op('/api/v1/entitlements/plans', 'get'), '200'), /PlanResponse/)
  t.ok(op('/api/v1/entitlements', 'get')?.responses?.['200'], 'GET /entitlements answers 200')
  t.match(ref(op('/api/v1/entitlements/flags', 'get'), '200'), /additionalProperties/)
  const upsert = op('/api/v1/entitlements/flags', 'post')
  t.match(JSON.stringify(upsert?.requestBody), /FlagUpsert/)
  t.match(ref(upsert, '201'), /FlagResponse/)
  t.equal(upsert?.['x-permission'], 'organization:write')
  const toggle = op('/api/v1/entitlements/flags/{key}/toggle', 'post')
  t.match(JSON.stringify(toggle?.requestBody), /FlagToggle/)
  t.match(ref(toggle, '200'), /FlagResponse/)
  t.ok(toggle?.responses?.['404'], 'toggle documents its 404')
})
