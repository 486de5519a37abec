import t from 'tap'
import { startTestApp } from '../../helpers/app.js'
import { newOwner } from '../../helpers/tenancy-fixtures.js'

// The outbound (SSRF) guard refuses private, loopback, link-local and metadata addresses
// (docs/configuration.md, OZAN_ALLOW_PRIVATE_CIDRS) — and this server itself. A server listening
// on a public address would otherwise let an organization aim a webhook or an integration request
// at its own API (rule 4 of core/net/ssrf.ts).
// One guard serves provider base URLs, webhooks and integrations alike.
const OWN_ADDRESS = '93.184.216.34'

t.test("webhook endpoints and the http integration refuse this server's own public address, as provider base URLs do", async (t) => {
  const a = await startTestApp({ env: { OZAN_HOST: OWN_ADDRESS } })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  for (const url of [`https://${OWN_ADDRESS}/hook`, `https://[::ffff:${OWN_ADDRESS}]/hook`]) {
    const hook = await a.request('POST', '/api/v1/webhooks/endpoints', { token: owner.token, body: { url, events: ['session.started'] } })
    t.equal(hook.status, 422, url)
    t.match(hook.body.detail, [{ type: 'destination_refused', loc: ['body', 'url'], msg: /this server/ }], url)
    const run = await a.request('POST', '/api/v1/integrations/http/run', { token: owner.token, body: { action: 'request', input: { url } } })
    t.equal(run.status, 200, url)
    t.match(run.body, { ok: false, output: null, error: { code: 'destination_refused', message: /this server/ } }, url)
  }
})

t.test("the operator's allowed ranges admit the server's own address, as for every other refused range", async (t) => {
  const a = await startTestApp({ env: { OZAN_HOST: OWN_ADDRESS, OZAN_ALLOW_PRIVATE_CIDRS: `${OWN_ADDRESS}/32` } })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const hook = await a.request('POST', '/api/v1/webhooks/endpoints', {
    token: owner.token,
    body: { url: `https://${OWN_ADDRESS}/hook`, events: ['session.started'] },
  })
  t.equal(hook.status, 201, hook.text.slice(0, 300))
})
