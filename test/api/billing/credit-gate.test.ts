import t from 'tap'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { B, billingScene, type BillingScene } from './billing-fixtures.js'

const W = '/api/v1/workflows'
const GRAPH = {
  variables: [],
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'line', type: 'say', data: { text: 'Hello.' } },
    { id: 'ask', type: 'collect', data: { variable: 'x', value_type: 'text', prompt: 'Anything?', max_attempts: 2 } },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { id: 'a', source: 'start', target: 'line' },
    { id: 'b', source: 'line', target: 'ask' },
    { id: 'c', source: 'ask', target: 'done' },
  ],
  // biome-ignore lint/suspicious/noExplicitAny: a literal graph
} as any

async function voiceAgent(s: BillingScene): Promise<string> {
  const id = expectStatus(
    await s.send('POST', W, { body: { name: 'Gate', definition: { ...GRAPH, variables: [{ name: 'x', type: 'string' }] } } }),
    201,
    'agent',
  ).id
  expectStatus(await s.send('PUT', `${W}/${id}/config`, { body: { stt: { provider: 'deepgram' }, tts: { provider: 'espeak' } } }), 200, 'config')
  expectStatus(await s.send('POST', `${W}/${id}/publish`), 200, 'publish')
  expectStatus(await s.send('PUT', '/api/v1/credentials', { body: { provider: 'deepgram', fields: { api_key: 'dg-key' } } }), 200, 'credential')
  return id
}

/** Every way to start a session or call, each answering its status. */
async function starts(s: BillingScene, id: string) {
  return {
    session: (await s.send('POST', `${W}/${id}/sessions`, { body: {} })).status,
    run: (await s.send('POST', `${W}/${id}/runs/text`, { body: {} })).status,
    chat: (await s.send('POST', '/api/v1/calls', { body: { channel: 'chat', workflow_uuid: id } })).status,
    web: (await s.send('POST', '/api/v1/calls', { body: { channel: 'web', workflow_uuid: id } })).status,
    token: (await s.send('POST', '/api/v1/calls/web-token', { body: { workflow_uuid: id } })).status,
  }
}

t.test('billing on with no credit: starting a session or a call is 402 insufficient_credit, and nothing is recorded', async (t) => {
  const s = await billingScene(t, { OZAN_BILLING: 'on' })
  const id = await voiceAgent(s)
  t.same(await starts(s, id), { session: 402, run: 402, chat: 402, web: 402, token: 402 })
  const res = await s.send('POST', `${W}/${id}/sessions`, { body: {} })
  t.equal(res.body.error.code, 'insufficient_credit')
  t.equal((s.a.db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n, 0, 'no session was opened')

  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 100, reason: 'credit', operator: 'test' })
  const after = await starts(s, id)
  t.same(after, { session: 201, run: 200, chat: 201, web: 201, token: 201 }, 'with credit every start succeeds')
})

t.test('a balance taken below zero refuses new starts too', async (t) => {
  const s = await billingScene(t, { OZAN_BILLING: 'on' })
  const id = await voiceAgent(s)
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: 5, reason: 'credit', operator: 'test' })
  s.a.services.billing.grant({ organizationId: s.owner.organizationId, amountMinor: -8, reason: 'chargeback', operator: 'test' })
  t.equal((await s.send('GET', `${B}/credits`)).body.balance_minor, -3)
  t.equal((await s.send('POST', `${W}/${id}/sessions`, { body: {} })).status, 402)
})

t.test('billing off (the default): a zero balance refuses nothing', async (t) => {
  const s = await billingScene(t)
  const id = await voiceAgent(s)
  t.same(await starts(s, id), { session: 201, run: 200, chat: 201, web: 201, token: 201 })
})
