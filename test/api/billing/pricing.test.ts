import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { costMinor, DEFAULT_PRICES, PriceBook } from '../../../api/billing/index.js'
import { createKey, createWorkflow, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { startTestApp } from '../../helpers/app.js'
import { B, billingScene } from './billing-fixtures.js'

t.test('a cost is rounded up to a whole minor unit and exact for large counts', async (t) => {
  const deepgram = { unit: 'minute' as const, price_minor: 77, per_units: 100 }
  t.equal(costMinor(deepgram, 0), 0, 'nothing used costs nothing')
  t.equal(costMinor(deepgram, 1), 1, 'one millisecond is not free')
  t.equal(costMinor(deepgram, 100 * 60_000), 77, '100 minutes: exactly the price')
  t.equal(costMinor(deepgram, 100 * 60_000 + 1), 78)
  // 10^12 tokens at 15 per 1000 × 1k tokens: 15 × 10^6 exactly, beyond what floats carry through a product.
  t.equal(costMinor({ unit: '1k_input_tokens', price_minor: 15, per_units: 1000 }, 1e12), 15_000_000)
  t.throws(() => costMinor(deepgram, -1), RangeError)
  t.throws(() => costMinor(deepgram, 1.5), RangeError)
})

t.test('the operator’s entries replace the defaults of the same provider and unit', async (t) => {
  const book = PriceBook.withOverrides('usd', [{ service_type: 'platform', provider: 'ozan', unit: 'minute', price_minor: 9, per_units: 1 }])
  t.equal(book.find('platform', 'ozan', 'minute')?.price_minor, 9)
  t.equal(book.entries().length, DEFAULT_PRICES.length, 'replaced, not added')
  t.equal(book.find('stt', 'nobody', 'minute'), null)
})

t.test('GET /billing/pricing lists every provider and unit in minor units; a key without billing:read is refused', async (t) => {
  const s = await billingScene(t)
  const res = await s.send('GET', `${B}/pricing`)
  t.equal(res.status, 200)
  t.equal(res.body.length, DEFAULT_PRICES.length)
  t.match(res.body, [{ service_type: 'stt', provider: 'deepgram', unit: 'minute', price_minor: 77, per_units: 100, currency: 'usd' }])
  for (const unit of ['minute', '1k_input_tokens', '1k_output_tokens', '1k_characters'])
    t.ok(
      res.body.some((e: { unit: string }) => e.unit === unit),
      `has ${unit}`,
    )
  for (const type of ['stt', 'llm', 'tts', 'telephony', 'platform'])
    t.ok(
      res.body.some((e: { service_type: string }) => e.service_type === type),
      type,
    )
  const key = await createKey(s.a, s.owner, ['workflow:read'])
  const denied = await s.a.request('GET', `${B}/pricing`, { apiKey: key.key })
  t.equal(denied.status, 403)
  t.equal(denied.body.error.code, 'permission_denied')
})

t.test('OZAN_BILLING_PRICES_FILE sets prices; a bad file stops start-up naming the problem', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-prices-'))
  const good = path.join(dir, 'prices.json')
  fs.writeFileSync(good, JSON.stringify([{ service_type: 'tts', provider: 'espeak', unit: '1k_characters', price_minor: 2 }]))
  const s = await billingScene(t, { OZAN_BILLING_PRICES_FILE: good, OZAN_BILLING_CURRENCY: 'eur' })
  const res = await s.send('GET', `${B}/pricing`)
  t.match(
    res.body.find((e: { provider: string }) => e.provider === 'espeak'),
    { price_minor: 2, per_units: 1, currency: 'eur' },
  )
  const bad = path.join(dir, 'bad.json')
  fs.writeFileSync(bad, JSON.stringify([{ service_type: 'tts', provider: 'espeak', unit: '1k_characters', price_minor: -5 }]))
  await t.rejects(startTestApp({ env: { OZAN_BILLING_PRICES_FILE: bad } }), /OZAN_BILLING_PRICES_FILE: .*price_minor/)
})

t.test('an estimate is itemised per provider and unit, per call and in total', async (t) => {
  const s = await billingScene(t)
  const res = await s.send('POST', `${B}/pricing/estimate`, {
    body: { providers: { stt: 'deepgram', llm: 'openai', tts: 'deepgram', telephony: 'sip' }, channel: 'phone', minutes: 3, calls: 10, turns: 12 },
  })
  t.equal(res.status, 200, res.text)
  const e = res.body
  const line = (type: string, unit: string) => e.items.find((i: { service_type: string; unit: string }) => i.service_type === type && i.unit === unit)
  // Independent arithmetic: 3 min of Deepgram at 77/100 min = 2.31 → 3; 12 turns × 800 tokens = 9600 at 15/1000k → 0.144 → 1;
  // 12 × 60 = 720 out at 60/1000k → 0.0432 → 1; 12 × 200 = 2400 chars at 3/1k → 7.2 → 8; telephony 0; platform 3 × 5 = 15.
  t.match(line('stt', 'minute'), { provider: 'deepgram', quantity: 3, base_quantity: 180_000, amount_minor: 3 })
  t.match(line('llm', '1k_input_tokens'), { base_quantity: 9600, amount_minor: 1 })
  t.match(line('llm', '1k_output_tokens'), { base_quantity: 720, amount_minor: 1 })
  t.match(line('tts', '1k_characters'), { provider: 'deepgram', base_quantity: 2400, amount_minor: 8 })
  t.match(line('telephony', 'minute'), { provider: 'sip', amount_minor: 0 })
  t.match(line('platform', 'minute'), { amount_minor: 15 })
  t.equal(e.per_call_minor, 28)
  t.equal(e.total_minor, 280)
  t.equal(e.currency, 'usd')
})

t.test("an estimate from an agent prices its providers; another organization's agent is 404", async (t) => {
  const s = await billingScene(t)
  const wf = await createWorkflow(s.a, s.owner)
  expectStatus(await s.send('PUT', `/api/v1/workflows/${wf}/config`, { body: { tts: { provider: 'openai' }, stt: { provider: 'openai' } } }), 200, 'config')
  const res = await s.send('POST', `${B}/pricing/estimate`, { body: { workflow_uuid: wf, minutes: 1 } })
  t.equal(res.status, 200, res.text)
  t.same(res.body.providers, { stt: 'openai', llm: 'openai', tts: 'openai', telephony: null })
  t.notOk(
    res.body.items.some((i: { service_type: string }) => i.service_type === 'telephony'),
    'a web call has no telephony line',
  )
  const other = await newOwner(s.a)
  const foreign = await s.a.request('POST', `${B}/pricing/estimate`, { token: other.token, body: { workflow_uuid: wf, minutes: 1 } })
  t.equal(foreign.status, 404)
  t.equal(foreign.body.error.code, 'not_found')
  const unknown = await s.a.request('POST', `${B}/pricing/estimate`, {
    token: other.token,
    body: { workflow_uuid: '00000000-0000-4000-8000-000000000000', minutes: 1 },
  })
  t.same(
    { ...foreign.body.error, request_id: null },
    { ...unknown.body.error, request_id: null },
    "another organization's agent answers exactly as an unknown one",
  )
})

t.test('bad estimate requests are 422 with detail[]', async (t) => {
  const s = await billingScene(t)
  const cases: [string, unknown][] = [
    ['negative minutes', { minutes: -1 }],
    ['huge minutes', { minutes: 1e9 }],
    ['minutes missing', {}],
    ['non-integer calls', { minutes: 1, calls: 1.5 }],
    ['zero calls', { minutes: 1, calls: 0 }],
    ['unknown field', { minutes: 1, surprise: true }],
    ['a provider key that is not one', { minutes: 1, providers: { stt: 'DROP TABLE' } }],
    ['minutes as a string', { minutes: '3' }],
  ]
  for (const [what, body] of cases) {
    const res = await s.send('POST', `${B}/pricing/estimate`, { body })
    t.equal(res.status, 422, what)
    t.ok(Array.isArray(res.body?.detail) && res.body.detail.length > 0, `${what}: detail[]`)
  }
  // In bounds field by field, but the product is past what an integer states exactly.
  const huge = await s.send('POST', `${B}/pricing/estimate`, {
    body: { minutes: 100_000, calls: 1_000_000, input_tokens_per_turn: 1_000_000, providers: { llm: 'openai' } },
  })
  t.equal(huge.status, 200, `still exact: ${huge.text}`)
  t.ok(Number.isSafeInteger(huge.body.total_minor))
})
