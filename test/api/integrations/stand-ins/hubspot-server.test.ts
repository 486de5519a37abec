import t from 'tap'
import { startHubspotStandIn } from '../../../../api/integrations/stand-ins/index.js'

const TOKEN = 'pat-na1-standin-0123456789'

t.test('creates contacts from the input and answers HubSpot errors with their categories', async (t) => {
  const s = await startHubspotStandIn({ accessToken: TOKEN })
  t.teardown(() => s.close())
  const post = async (body: unknown, token = TOKEN) => {
    const res = await fetch(`${s.url}/crm/v3/objects/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as Record<string, any> } // eslint-disable-line @typescript-eslint/no-explicit-any
  }
  const made = await post({ properties: { email: 'A@Example.com', firstname: 'Ada' } })
  t.equal(made.status, 201)
  t.match(made.body, { id: /^\d+$/, archived: false, createdAt: String, properties: { email: 'a@example.com', firstname: 'Ada', hs_object_id: made.body.id } })
  const second = await post({ properties: { email: 'b@example.com' } })
  t.not(second.body.id, made.body.id)
  const dup = await post({ properties: { email: 'a@example.com' } })
  t.equal(dup.status, 409)
  t.match(dup.body, { status: 'error', category: 'CONFLICT', message: `Contact already exists. Existing ID: ${made.body.id}`, correlationId: String })
  t.match(await post({ properties: { email: 'not-an-email' } }), { status: 400, body: { category: 'VALIDATION_ERROR', message: /INVALID_EMAIL/ } })
  t.match(await post({ email: 'x@example.com' }), { status: 400, body: { category: 'VALIDATION_ERROR' } })
  t.match(await post({ properties: { email: 'c@example.com' } }, 'pat-wrong'), { status: 401, body: { category: 'INVALID_AUTHENTICATION' } })
  s.fail({ kind: 'status', status: 429, retryAfterS: 1 })
  t.match(await post({ properties: { email: 'd@example.com' } }), { status: 429, body: { category: 'RATE_LIMITS' } })
  t.equal(s.contacts.length, 2)
  t.equal(s.requests.length, 7)
})
