import t from 'tap'
import { startTestApp } from '../../helpers/app.js'

// The spec's Billing table and its schema names, copied here so the document is checked against
// the spec rather than against the route objects it is made from.
const SPEC = [
  ['get', '/api/v1/billing/pricing', '200', 'ProviderCostResponse', null],
  ['post', '/api/v1/billing/pricing/estimate', '200', 'EstimateResponse', 'EstimateRequest'],
  ['get', '/api/v1/billing/usage', '200', 'UsageSummaryResponse', null],
  ['get', '/api/v1/billing/credits', '200', 'CreditBalanceResponse', null],
  ['get', '/api/v1/billing/credits/transactions', '200', 'CreditTransactionResponse', null],
  ['post', '/api/v1/billing/topup', '200', 'RedirectResponse', 'TopupRequest'],
] as const

t.test('the billing operations are documented with the spec’s status and schema names, behind both security schemes', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const doc = (await a.request('GET', '/api/v1/openapi.json')).body
  for (const [method, path, status, response, request] of SPEC) {
    const op = doc.paths[path]?.[method]
    t.ok(op, `${method.toUpperCase()} ${path} is documented`)
    if (!op) continue
    t.ok(JSON.stringify(op.responses[status]).includes(`#/components/schemas/${response}`), `${path} answers ${status} ${response}`)
    if (request) t.ok(JSON.stringify(op.requestBody).includes(`#/components/schemas/${request}`), `${path} takes ${request}`)
    t.same(op.security, [{ BearerAuth: [] }, { ApiKeyAuth: [] }], `${path}: key or bearer`)
    t.ok(doc.components.schemas[response], `${response} is a component`)
  }
  const hook = doc.paths['/api/v1/billing/webhooks/stripe']?.post
  t.ok(hook, 'the Stripe webhook is documented')
  t.same(hook.security ?? [], [], 'it carries no API authentication: its signature is the check')
})
