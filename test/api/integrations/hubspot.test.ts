import t, { type Test } from 'tap'
import { startHubspotStandIn } from '../../../api/integrations/stand-ins/index.js'
import { integrationApp, run, storeCredential } from './integration-fixtures.js'

const TOKEN = 'pat-eu1-ozan-integration-0123456789'

async function setup(t: Test, token = TOKEN) {
  const hub = await startHubspotStandIn({ accessToken: TOKEN })
  t.teardown(() => hub.close())
  const { a, owner } = await integrationApp(t, { allowLoopback: true })
  await storeCredential(a, owner, 'hubspot', { access_token: token, base_url: hub.url })
  return { a, owner, hub }
}

t.test('create_contact posts the CRM v3 properties and maps the contact', async (t) => {
  const { a, owner, hub } = await setup(t)
  const res = await run(a, owner, 'hubspot', 'create_contact', { email: 'Lead@Example.com', firstname: 'Mehmet', lastname: 'Kaya', company: 'Acme' })
  t.equal(res.status, 200, res.text)
  t.match(res.body, {
    ok: true,
    output: { contact: { id: hub.contacts[0]!.id, email: 'lead@example.com', firstname: 'Mehmet', lastname: 'Kaya', created_at: String } },
  })
  t.match(hub.requests[0], { method: 'POST', path: '/crm/v3/objects/contacts', headers: { authorization: `Bearer ${TOKEN}` } })
  t.same(hub.requests[0]!.body, { properties: { email: 'Lead@Example.com', firstname: 'Mehmet', lastname: 'Kaya', company: 'Acme' } })
})

t.test("a duplicate email and a bad token are ok false with HubSpot's category", async (t) => {
  const { a, owner, hub } = await setup(t)
  t.equal((await run(a, owner, 'hubspot', 'create_contact', { email: 'dup@example.com' })).body.ok, true)
  const dup = await run(a, owner, 'hubspot', 'create_contact', { email: 'dup@example.com' })
  t.match(dup.body, { ok: false, error: { code: 'CONFLICT', message: new RegExp(`Existing ID: ${hub.contacts[0]!.id}`) } })
  const bad = await setup(t, 'pat-wrong')
  t.match((await run(bad.a, bad.owner, 'hubspot', 'create_contact', { email: 'x@example.com' })).body, { ok: false, error: { code: 'INVALID_AUTHENTICATION' } })
  t.equal(bad.hub.contacts.length, 0)
})
