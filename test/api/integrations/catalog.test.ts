import t from 'tap'
import { integrationApp, storeCredential } from './integration-fixtures.js'

const LIST = '/api/v1/integrations'

t.test('the catalog lists each integration, its actions with input schemas, and the credential it needs', async (t) => {
  const { a, owner } = await integrationApp(t, { allowLoopback: false })
  const res = await a.request('GET', LIST, { token: owner.token })
  t.equal(res.status, 200)
  const byKey = new Map<string, any>(res.body.map((i: { key: string }) => [i.key, i])) // eslint-disable-line @typescript-eslint/no-explicit-any
  t.same([...byKey.keys()], ['http', 'slack', 'calcom', 'hubspot'])

  const http = byKey.get('http')
  t.match(http, { name: 'HTTP request', credential: null, ready: true, actions: [{ name: 'request', output: /status, headers, body, truncated/ }] })
  const httpSchema = http.actions[0].input_schema
  t.match(httpSchema, {
    type: 'object',
    required: ['url'],
    additionalProperties: false,
    properties: { method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'], default: 'GET' }, timeout_ms: { maximum: 30000 } },
  })

  const slack = byKey.get('slack')
  t.match(slack, {
    credential: {
      provider: 'slack',
      name: 'Slack',
      stored: false,
      fields: [
        { name: 'bot_token', required: true, secret: true },
        { name: 'base_url', required: false, secret: false },
      ],
    },
    ready: false,
    actions: [{ name: 'post_message', input_schema: { required: ['channel', 'text'], properties: { channel: { type: 'string' }, text: { type: 'string' } } } }],
  })
  t.match(byKey.get('calcom'), {
    credential: { provider: 'calcom', fields: [{ name: 'api_key', secret: true }] },
    actions: [{ name: 'create_booking', input_schema: { required: ['event_type_id', 'start', 'name', 'email'] } }],
  })
  t.match(byKey.get('hubspot'), {
    credential: { provider: 'hubspot', fields: [{ name: 'access_token' }] },
    actions: [{ name: 'create_contact', input_schema: { required: ['email'] } }],
  })
  // A tool node passes strings: numeric inputs accept digits as well.
  t.match(JSON.stringify(byKey.get('calcom').actions[0].input_schema.properties.event_type_id), /"type":"integer".*"type":"string"/)
})

t.test('stored flags follow the organization’s own credentials only', async (t) => {
  const { a, owner } = await integrationApp(t, { allowLoopback: false })
  await storeCredential(a, owner, 'slack', { bot_token: 'xoxb-catalog-0123456789' })
  const mine = (await a.request('GET', LIST, { token: owner.token })).body
  t.match(
    mine.find((i: { key: string }) => i.key === 'slack'),
    { credential: { stored: true }, ready: true },
  )
  t.match(
    mine.find((i: { key: string }) => i.key === 'calcom'),
    { credential: { stored: false }, ready: false },
  )
  t.notOk(JSON.stringify(mine).includes('xoxb-catalog'), 'no credential value appears in the catalog')
  const other = await (await import('../../helpers/tenancy-fixtures.js')).newOwner(a)
  const theirs = (await a.request('GET', LIST, { token: other.token })).body
  t.match(
    theirs.find((i: { key: string }) => i.key === 'slack'),
    { credential: { stored: false }, ready: false },
    "another organization does not see this one's credential",
  )
})

t.test('the document describes both routes with the spec’s schema names', async (t) => {
  const { a } = await integrationApp(t, { allowLoopback: false })
  const doc = (await a.request('GET', '/api/v1/openapi.json')).body
  t.ok(doc.components.schemas.IntegrationResponse)
  t.ok(doc.components.schemas.RunActionRequest)
  t.ok(doc.components.schemas.RunActionResponse)
  const run = doc.paths['/api/v1/integrations/{key}/run'].post
  t.match(run.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/RunActionRequest' })
  t.match(run.responses['400'].description, /credential_missing/)
  t.match(run.responses['404'].description, /not_found/)
})
