import t, { type Test } from 'tap'
import Stripe from 'stripe'
import { StripeStandIn } from '../../../api/billing/stand-ins/stripe-server.js'
import { addMember, createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { B, billingScene, ledgerSum, type BillingScene } from './billing-fixtures.js'

const SECRET_KEY = 'sk_test_ozan_51abc'
const WEBHOOK_SECRET = 'whsec_test_ozan_signing'
const HOOK = `${B}/webhooks/stripe`
// The SDK signs test payloads the way Stripe signs real ones (t=…,v1=HMAC-SHA256 of "t.body").
const signer = new Stripe('sk_test_signer_only').webhooks

async function stripeScene(t: Test): Promise<BillingScene & { stripe: StripeStandIn }> {
  const stripe = await new StripeStandIn(SECRET_KEY).start()
  t.teardown(() => stripe.close())
  const s = await billingScene(t, {
    OZAN_BILLING: 'on',
    OZAN_BILLING_PAYMENTS: 'stripe',
    OZAN_STRIPE_SECRET_KEY: SECRET_KEY,
    OZAN_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    OZAN_STRIPE_API_URL: stripe.url,
  })
  return { ...s, stripe }
}

function deliver(s: BillingScene, event: unknown, o: { secret?: string; timestamp?: number; body?: string } = {}) {
  const payload = JSON.stringify(event)
  const header = signer.generateTestHeaderString({ payload, secret: o.secret ?? WEBHOOK_SECRET, ...(o.timestamp !== undefined && { timestamp: o.timestamp }) })
  return s.a.request('POST', HOOK, { raw: o.body ?? payload, headers: { 'content-type': 'application/json', 'stripe-signature': header } })
}

/** A top-up of `amount` started by the owner: its RedirectResponse and the stand-in's Checkout Session. */
async function startTopup(s: BillingScene & { stripe: StripeStandIn }, amount = 2500) {
  const res = expectStatus(await s.send('POST', `${B}/topup`, { body: { amount_minor: amount, success_url: 'https://app.example.com/paid' } }), 200, 'topup')
  const session = [...s.stripe.sessions.values()].find((x) => x.client_reference_id === res.topup_id)!
  return { res, session }
}

t.test('POST /billing/topup creates a Stripe Checkout Session through the SDK and answers its payment page; nothing is credited yet', async (t) => {
  const s = await stripeScene(t)
  const { res, session } = await startTopup(s)
  t.match(res, { provider: 'stripe', amount_minor: 2500, currency: 'usd' })
  t.equal(res.url, session.url, 'the hosted page Stripe gave')
  t.match(res.url, /^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/)
  const sent = s.stripe.requests.at(-1)!
  t.equal(sent.headers.authorization, `Bearer ${SECRET_KEY}`)
  t.equal(sent.headers['idempotency-key'], `ozan-topup-${res.topup_id}`, 'a retried create is the same session')
  t.match(sent.form, {
    mode: 'payment',
    client_reference_id: res.topup_id,
    success_url: 'https://app.example.com/paid',
    metadata: { topup_id: res.topup_id, organization_id: s.owner.organizationId },
    line_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '2500' } }],
  })
  t.equal((await s.send('GET', `${B}/credits`)).body.balance_minor, 0, 'the redirect credits nothing')
  const audit = s.a.db.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'billing.topup_started'").get() as { n: number }
  t.equal(audit.n, 1)
})

t.test('a signed checkout.session.completed credits the top-up once; replays and second events for the session credit nothing', async (t) => {
  const s = await stripeScene(t)
  const { res, session } = await startTopup(s)
  const event = s.stripe.completedEvent(session.id)
  const first = await deliver(s, event)
  t.equal(first.status, 200, first.text)
  t.same(first.body, { received: true, duplicate: false })
  t.equal((await s.send('GET', `${B}/credits`)).body.balance_minor, 2500)
  const replay = await deliver(s, event)
  t.same(replay.body, { received: true, duplicate: true }, 'the same event id again')
  const another = await deliver(s, s.stripe.completedEvent(session.id))
  t.equal(another.status, 200)
  const balance = (await s.send('GET', `${B}/credits`)).body.balance_minor
  t.equal(balance, 2500, 'credited once')
  t.equal(balance, ledgerSum(s.a, s.owner.organizationId))
  t.match((await s.send('GET', `${B}/credits/transactions`)).body, [{ kind: 'topup', amount_minor: 2500, provider: 'stripe' }])
  const topup = s.a.db.prepare('SELECT status FROM credit_topups WHERE id = ?').get(res.topup_id) as { status: string }
  t.equal(topup.status, 'paid')
  t.equal((s.a.db.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'billing.credited'").get() as { n: number }).n, 1)
})

t.test('forged, tampered and stale webhooks are 400 invalid_signature and credit nothing', async (t) => {
  const s = await stripeScene(t)
  const { session } = await startTopup(s)
  const event = s.stripe.completedEvent(session.id)
  const forged = await deliver(s, event, { secret: 'whsec_attacker' })
  t.equal(forged.status, 400)
  t.equal(forged.body.error.code, 'invalid_signature')
  const bigger = { ...event, data: { object: { ...event.data.object, amount_total: 999_999 } } }
  const tampered = await deliver(s, event, { body: JSON.stringify(bigger) })
  t.equal(tampered.status, 400, 'a body that is not the one signed')
  const stale = await deliver(s, event, { timestamp: Math.floor(Date.now() / 1000) - 600 })
  t.equal(stale.status, 400, 'signed ten minutes ago: a captured delivery replayed')
  const unsigned = await s.a.request('POST', HOOK, { raw: JSON.stringify(event), headers: { 'content-type': 'application/json' } })
  t.equal(unsigned.status, 422, 'no Stripe-Signature header')
  const garbage = await s.a.request('POST', HOOK, { raw: JSON.stringify(event), headers: { 'content-type': 'application/json', 'stripe-signature': 'v1=abc' } })
  t.equal(garbage.status, 400)
  t.equal((await s.send('GET', `${B}/credits`)).body.balance_minor, 0, 'nothing credited')
  // The genuine event still credits afterwards: the refused ones were not recorded as handled.
  t.equal((await deliver(s, event)).status, 200)
  t.equal((await s.send('GET', `${B}/credits`)).body.balance_minor, 2500)
})

t.test('a signed event that pays nothing of ours credits nothing: unpaid, unknown top-up, wrong amount', async (t) => {
  const s = await stripeScene(t)
  const { session } = await startTopup(s)
  t.same((await deliver(s, s.stripe.completedEvent(session.id, { paid: false }))).body, { received: true, duplicate: false })
  const e = s.stripe.completedEvent(session.id)
  const wrongAmount = { ...e, id: 'evt_test_wrong_amount', data: { object: { ...e.data.object, amount_total: 99 } } }
  t.equal((await deliver(s, wrongAmount)).status, 200)
  const stranger = {
    ...e,
    id: 'evt_test_stranger',
    data: { object: { ...e.data.object, client_reference_id: '00000000-0000-4000-8000-000000000000', metadata: {} } },
  }
  t.equal((await deliver(s, stranger)).status, 200)
  t.equal((await deliver(s, { ...e, id: 'evt_test_other', type: 'customer.created' })).status, 200, 'other event types are acknowledged')
  t.equal((await s.send('GET', `${B}/credits`)).body.balance_minor, 0)
})

t.test('top-up amounts are bounded integers of minor units: 422 otherwise', async (t) => {
  const s = await stripeScene(t)
  for (const amount_minor of [-500, 0, 99, 12.5, 10_000_001, 1e300, '2500', null]) {
    const res = await s.send('POST', `${B}/topup`, { body: { amount_minor } })
    t.equal(res.status, 422, `amount_minor ${JSON.stringify(amount_minor)}`)
    t.ok(res.body.detail?.length)
  }
  t.equal((await s.send('POST', `${B}/topup`, { body: { amount_minor: 500, success_url: 'javascript:alert(1)' } })).status, 422)
  t.equal((await s.send('POST', `${B}/topup`, { body: { amount_minor: 500, extra: 1 } })).status, 422)
  t.equal(s.stripe.requests.length, 0, 'nothing reached Stripe')
})

t.test('a top-up needs org:manage (billing:write): 403 for developers, viewers and read-only keys', async (t) => {
  const s = await stripeScene(t)
  const body = { amount_minor: 1000 }
  for (const [label, role] of [
    ['developer', 3],
    ['viewer', 4],
  ] as const) {
    const m = await addMember(s.a, s.owner, role)
    const res = await s.a.request('POST', `${B}/topup`, { token: m.token, body })
    t.equal(res.status, 403, label)
    t.equal(res.body.error.code, 'permission_denied')
    t.equal((await s.a.request('GET', `${B}/credits`, { token: m.token })).status, 200, `${label} may read the balance`)
  }
  const reader = await createKey(s.a, s.owner, ['org:read'])
  t.equal((await s.a.request('POST', `${B}/topup`, { apiKey: reader.key, body })).status, 403, 'an org:read key')
  const manager = await createKey(s.a, s.owner, ['org:manage'])
  t.equal((await s.a.request('POST', `${B}/topup`, { apiKey: manager.key, body })).status, 200, 'an org:manage key')
})

t.test('Stripe refusing the checkout is 502 and leaves no pending top-up', async (t) => {
  const s = await stripeScene(t)
  s.stripe.failNext = { status: 400, type: 'invalid_request_error', message: 'Amount must convert to at least 50 cents.' }
  const res = await s.send('POST', `${B}/topup`, { body: { amount_minor: 1000 } })
  t.equal(res.status, 502)
  t.equal(res.body.error.code, 'upstream_error')
  t.notMatch(res.text, /50 cents/, "the provider's message is not passed on")
  t.equal((s.a.db.prepare('SELECT count(*) AS n FROM credit_topups').get() as { n: number }).n, 0)
})

t.test('without a payment provider a top-up is 400 payments_not_configured and the webhook route is 404', async (t) => {
  const s = await billingScene(t)
  const res = await s.send('POST', `${B}/topup`, { body: { amount_minor: 1000 } })
  t.equal(res.status, 400)
  t.equal(res.body.error.code, 'payments_not_configured')
  const hook = await s.a.request('POST', HOOK, { raw: '{}', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' } })
  t.equal(hook.status, 404)
})

t.test('the manual provider sends the buyer to the operator’s page; the operator’s grant pays that top-up once, audited', async (t) => {
  const s = await billingScene(t, { OZAN_BILLING: 'on', OZAN_BILLING_PAYMENTS: 'manual', OZAN_BILLING_MANUAL_URL: 'https://billing.example.com/pay' })
  const res = expectStatus(await s.send('POST', `${B}/topup`, { body: { amount_minor: 5000 } }), 200, 'manual topup')
  t.match(res, { provider: 'manual', amount_minor: 5000 })
  const url = new URL(res.url)
  t.equal(url.origin + url.pathname, 'https://billing.example.com/pay')
  t.equal(url.searchParams.get('topup_id'), res.topup_id)
  t.equal((await s.send('GET', `${B}/credits`)).body.balance_minor, 0)
  const grant = { organizationId: s.owner.organizationId, amountMinor: 5000, reason: 'invoice 42 paid', operator: 'alice@ops', topupId: res.topup_id }
  s.a.services.billing.grant(grant)
  t.throws(() => s.a.services.billing.grant(grant), /no such pending top-up/, 'the same top-up cannot be paid twice')
  const other = await newOwner(s.a)
  t.throws(() => s.a.services.billing.grant({ ...grant, organizationId: other.organizationId }), /no such pending top-up/, "another organization's top-up")
  t.equal((await s.send('GET', `${B}/credits`)).body.balance_minor, 5000)
  t.equal((await s.a.request('GET', `${B}/credits`, { token: other.token })).body.balance_minor, 0)
})
