// Phone numbers (issue #21 item 2): E.164 numbers on a trunk of the same environment, answered by
// an agent's published version; unique on the server; references to other organizations' trunks
// and agents answered like unknown ones.
import t, { type Test } from 'tap'
import { createKey, createTrunk, expectStatus, newOwner, SMALL_GRAPH } from '../../helpers/tenancy-fixtures.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'

const NUMBERS = '/api/v1/phone-numbers'

async function app(t: Test): Promise<TestApp> {
  const a = await startTestApp()
  t.teardown(() => a.close())
  return a
}

async function agent(a: TestApp, token: string, publish: boolean): Promise<string> {
  const id = expectStatus(await a.request('POST', '/api/v1/workflows', { token, body: { name: 'Receptionist' } }), 201, 'agent').id
  expectStatus(await a.request('PUT', `/api/v1/workflows/${id}/definition`, { token, body: SMALL_GRAPH }), 200, 'definition')
  if (publish) expectStatus(await a.request('POST', `/api/v1/workflows/${id}/publish`, { token }), 200, 'publish')
  return id
}

t.test('a number is added, normalised to E.164, read, changed and deleted', async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const trunkId = await createTrunk(a, owner)
  const wf = await agent(a, owner.token, true)
  const created = await a.request('POST', NUMBERS, {
    token: owner.token,
    body: { number: '+90 (212) 555-01.23', trunk_id: trunkId, workflow_uuid: wf, label: 'Front desk' },
  })
  t.equal(created.status, 201, created.text)
  t.match(created.body, { number: '+902125550123', label: 'Front desk', trunk_id: trunkId, workflow_uuid: wf, answering_version: 1 })
  const id = created.body.id
  t.same(
    expectStatus(await a.request('GET', NUMBERS, { token: owner.token }), 200, 'list').map((n: { id: string }) => n.id),
    [id],
  )
  t.same(expectStatus(await a.request('GET', `${NUMBERS}/${id}`, { token: owner.token }), 200, 'get'), created.body)

  const cleared = await a.request('PATCH', `${NUMBERS}/${id}`, { token: owner.token, body: { workflow_uuid: null, label: null } })
  t.equal(cleared.status, 200, cleared.text)
  t.match(cleared.body, { workflow_uuid: null, answering_version: null, label: null, number: '+902125550123' })
  const draftOnly = await agent(a, owner.token, false)
  const unpublished = expectStatus(await a.request('PATCH', `${NUMBERS}/${id}`, { token: owner.token, body: { workflow_uuid: draftOnly } }), 200, 'draft agent')
  t.equal(unpublished.answering_version, null, 'an agent without a published version cannot answer yet, and the number says so')

  t.equal((await a.request('DELETE', `${NUMBERS}/${id}`, { token: owner.token })).status, 204)
  t.equal((await a.request('GET', `${NUMBERS}/${id}`, { token: owner.token })).status, 404)
  t.equal((await a.request('DELETE', `/api/v1/sip-trunks/${trunkId}`, { token: owner.token })).status, 204, 'its trunk is free again')
})

t.test('numbers that are not E.164 are refused at the field', async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const trunkId = await createTrunk(a, owner)
  for (const number of ['905551234567', '+0555123', '+1234567890123456', '+90 555 ABC', '', '+', `+${'1'.repeat(41)}`, '+90\n5551234567']) {
    const res = await a.request('POST', NUMBERS, { token: owner.token, body: { number, trunk_id: trunkId } })
    t.equal(res.status, 422, `${JSON.stringify(number)} → 422`)
    t.same(res.body.detail?.[0]?.loc, ['body', 'number'])
  }
  const noTrunk = await a.request('POST', NUMBERS, { token: owner.token, body: { number: '+905551234567' } })
  t.same(noTrunk.body.detail?.[0]?.loc, ['body', 'trunk_id'])
})

t.test('a number is unique on the server; whose it is stays unsaid', async (t) => {
  const a = await app(t)
  const one = await newOwner(a)
  const two = await newOwner(a)
  expectStatus(await a.request('POST', NUMBERS, { token: one.token, body: { number: '+441632960001', trunk_id: await createTrunk(a, one) } }), 201, 'first')
  const again = await a.request('POST', NUMBERS, { token: two.token, body: { number: '+44 1632 960001', trunk_id: await createTrunk(a, two) } })
  t.equal(again.status, 409)
  t.equal(again.body.error.code, 'phone_number_taken')
  t.notMatch(again.text, one.organizationId)
})

t.test("another organization's trunk or agent is refused exactly like an unknown one", async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const stranger = await newOwner(a)
  const mine = await createTrunk(a, owner)
  const theirs = await createTrunk(a, stranger)
  const theirAgent = await agent(a, stranger.token, true)
  const unknown = '00000000-0000-4000-8000-000000000001'
  const answer = async (body: Record<string, unknown>) => {
    const res = await a.request('POST', NUMBERS, { token: owner.token, body: { number: '+441632960002', ...body } })
    t.equal(res.status, 422)
    return res.body.detail.map((d: { loc: unknown; msg: string; type: string }) => ({ loc: d.loc, msg: d.msg, type: d.type }))
  }
  t.same(await answer({ trunk_id: theirs }), await answer({ trunk_id: unknown }), 'trunk: same answer')
  t.same(await answer({ trunk_id: mine, workflow_uuid: theirAgent }), await answer({ trunk_id: mine, workflow_uuid: unknown }), 'agent: same answer')
  const prodTrunk = expectStatus(
    await a.request('POST', '/api/v1/sip-trunks', { token: owner.token, headers: { 'x-environment-id': 'prod' }, body: { name: 'P', host: '93.184.216.34' } }),
    201,
    'prod trunk',
  ).id
  t.same(await answer({ trunk_id: prodTrunk }), await answer({ trunk_id: unknown }), "another environment's trunk is not this environment's")
  t.same(expectStatus(await a.request('GET', NUMBERS, { token: owner.token }), 200, 'list'), [], 'nothing was stored')
})

t.test('org:read views numbers, org:manage changes them', async (t) => {
  const a = await app(t)
  const owner = await newOwner(a)
  const trunkId = await createTrunk(a, owner)
  const reader = await createKey(a, owner, ['org:read'])
  const manager = await createKey(a, owner, ['org:manage'])
  t.equal((await a.request('POST', NUMBERS, { apiKey: reader.key, body: { number: '+441632960003', trunk_id: trunkId } })).status, 403)
  const made = await a.request('POST', NUMBERS, { apiKey: manager.key, body: { number: '+441632960003', trunk_id: trunkId } })
  t.equal(made.status, 201)
  t.equal((await a.request('GET', `${NUMBERS}/${made.body.id}`, { apiKey: reader.key })).status, 200)
  t.equal((await a.request('DELETE', `${NUMBERS}/${made.body.id}`, { apiKey: reader.key })).status, 403)
  const audit = expectStatus(await a.request('GET', '/api/v1/audit?resource_type=phone_number', { token: owner.token }), 200, 'audit')
  t.same(
    (audit.items ?? audit).map((i: { action: string }) => i.action),
    ['phone_number.created'],
  )
})
