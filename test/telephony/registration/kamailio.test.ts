// Trunk registration against a real registrar: kamailio with Digest (test/fixtures/kamailio/),
// trunks made through the API of a real app, events through its bus to a webhook receiver. SIP
// runs in real time over loopback; the registration timers run on a clock the test moves, so a
// refresh due in 30 s happens at once.
import { Writable } from 'node:stream'
import t, { type Test } from 'tap'
import { EVENT_TYPES } from '../../../api/webhooks/catalog.js'
import { createLogger, type DomainEvent } from '../../../core/index.js'
import type { SipTrunkRow } from '../../../db/index.js'
import { SipListener } from '../../../sip/index.js'
import { RegistrationManager, type RegistrationUserAgent } from '../../../telephony/registration/index.js'
import { SipUserAgent } from '../../../telephony/sip/user-agent.js'
import { createEndpoint, receiver, webhookApp } from '../../api/webhooks/webhook-fixtures.js'
import { skipWithoutKamailio, startKamailio } from '../../helpers/kamailio.js'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { ManualTimers, until } from './fixtures.js'

const skip = skipWithoutKamailio()
const USER = { username: 'alice', password: 's3cret-trunk-pass' }

async function setup(t: Test) {
  const kamailio = await startKamailio(t, { users: [USER] })
  const { a, owner } = await webhookApp(t)
  const hook = await receiver(t)
  await createEndpoint(a, owner, { url: hook.url('/ok'), events: ['sip.trunk.registered', 'sip.trunk.down'] })
  const events: DomainEvent[] = []
  t.teardown(a.services.bus.subscribe((e) => void (e.type.startsWith('sip.trunk.') && events.push(e))))

  let ua: SipUserAgent | undefined
  const listener = await SipListener.listen({ host: '127.0.0.1', port: 0, transports: ['udp', 'tcp'], onMessage: (m, source) => ua?.receive(m, source) })
  ua = new SipUserAgent({ listener, publicHost: '127.0.0.1', handlers: { request: () => {}, ack: () => {}, strayResponse: () => {} } })
  // What each REGISTER asked for (its Expires) and how it ended, in order.
  const exchanges: string[] = []
  const agent = ua
  const recording: RegistrationUserAgent = {
    publicHost: agent.publicHost,
    contact: (user, transport) => agent.contact(user, transport),
    request: (request, target, handlers) => {
      const expires = request.headers.get('Expires')
      return agent.request(request, target, {
        response: (r) => (r.status >= 200 && exchanges.push(`${expires} ${r.status}`), handlers.response(r)),
        failed: (reason) => (exchanges.push(`${expires} ${reason}`), handlers.failed(reason)),
      })
    },
  }
  const logs: string[] = []
  const sink = new Writable({ write: (chunk, _e, done) => (logs.push(String(chunk)), done()) })
  const clock = new ManualTimers()
  const manager = new RegistrationManager({
    ua: recording,
    repos: a.services.repos,
    bus: a.services.bus,
    passwordOf: (row) => a.services.trunkPasswords.open(row),
    guard: a.services.providerNetwork.guard,
    logger: createLogger('debug', sink),
    clock,
    random: () => 0,
  })
  t.teardown(async () => {
    await manager.close()
    ua?.close()
    await listener.close()
  })

  const createTrunk = async (body: Record<string, unknown>): Promise<string> =>
    expectStatus(
      await a.request('POST', '/api/v1/sip-trunks', {
        token: owner.token,
        body: { name: 'Kamailio', host: '127.0.0.1', port: kamailio.port, username: USER.username, register: true, allowed_sources: [], ...body },
      }),
      201,
      'create trunk',
    ).id
  const row = (id: string): SipTrunkRow => a.services.repos.sipTrunks.byId(id)!
  return { a, owner, kamailio, listener, hook, events, exchanges, logs, clock, manager, createTrunk, row }
}

t.test('a trunk registers with kamailio through its Digest challenge; sip.trunk.registered once; turned off, it unregisters quietly', { skip }, async (t) => {
  const s = await setup(t)
  const id = await s.createTrunk({ password: USER.password, transport: 'udp', register_expires_s: 600 })
  s.manager.start()
  await until('the trunk to register', () => s.row(id).registration_state === 'registered')
  t.same(s.exchanges, ['600 401', '600 200'], 'challenged once, then accepted')
  const row = s.row(id)
  t.equal(row.registration_error, null)
  t.equal(row.registered_until, s.clock.now() + 600_000, 'registered until now + the 600 s kamailio granted')
  t.equal(s.events.length, 1)
  t.same(s.events[0], {
    type: 'sip.trunk.registered',
    organizationId: row.organization_id,
    environmentId: row.environment_id,
    data: { trunk_id: id, name: 'Kamailio', registrar: '127.0.0.1' },
    occurredAt: s.clock.now(),
  })
  const [delivered] = await s.hook.waitFor(1)
  const body = JSON.parse(delivered!.raw.toString()) as { event: string; data: Record<string, unknown> }
  t.equal(body.event, 'sip.trunk.registered')
  const example = EVENT_TYPES.find((e) => e.type === 'sip.trunk.registered')!.example
  t.same(Object.keys(body.data).sort(), Object.keys(example).sort(), 'the webhook payload has the catalog example’s keys')

  expectStatus(await s.a.request('PATCH', `/api/v1/sip-trunks/${id}`, { token: s.owner.token, body: { register: false } }), 200, 'turn off')
  s.manager.trunkChanged(id)
  await until('the unregister to be answered', () => s.exchanges.length === 3)
  t.equal(s.exchanges[2], '0 200', 'Expires: 0 accepted with the cached nonce')
  t.equal(s.row(id).registration_state, 'unregistered')
  t.same(
    s.events.map((e) => e.type),
    ['sip.trunk.registered'],
    'turned off by its owner: no sip.trunk.down',
  )
  const text = s.logs.join('')
  t.notMatch(text, USER.password, 'the password never reaches a log line')
  t.notMatch(text, /Authorization|response=/i, 'nor the credentials')
})

t.test('a wrong password fails with "credentials refused" after one answered challenge, and publishes nothing', { skip }, async (t) => {
  const s = await setup(t)
  const id = await s.createTrunk({ password: 'not-the-password', transport: 'udp' })
  s.manager.trunkChanged(id)
  await until('the registration to fail', () => s.row(id).registration_state === 'failed')
  t.equal(s.row(id).registration_error, '401 Unauthorized: credentials refused')
  t.same(s.exchanges, ['600 401', '600 401'], 'no third try in the same attempt (§22.2)')
  t.equal(s.manager.stateOf(id), 'retry_wait')
  t.same(s.events, [])
})

t.test('when kamailio goes away the failed refresh is sip.trunk.down, once, however many retries fail', { skip }, async (t) => {
  const s = await setup(t)
  const id = await s.createTrunk({ password: USER.password, transport: 'tcp', register_expires_s: 60 })
  s.manager.trunkChanged(id)
  await until('the trunk to register over TCP', () => s.row(id).registration_state === 'registered')
  t.same(s.exchanges, ['60 401', '60 200'])
  await s.kamailio.stop()
  // A REGISTER written on the closing connection would be lost without an error and wait out Timer F (32 s).
  await until('our end of the TCP connection to close', () => s.listener.tcp!.connections === 0)
  t.equal(s.clock.fireNext(), 30_000, 'a 60 s binding is refreshed after 30 s')
  await until('the refresh to fail', () => s.row(id).registration_state === 'failed')
  const reason = 'could not reach the registrar (transport error)'
  t.equal(s.row(id).registration_error, reason)
  for (const wait of [30_000, 60_000]) {
    const before = s.exchanges.length
    t.equal(s.clock.fireNext(), wait, `the next retry after ${wait / 1000} s`)
    await until('the retry to fail', () => s.exchanges.length === before + 1)
  }
  t.same(s.exchanges.slice(2), ['60 transport_error', '60 transport_error', '60 transport_error'])
  t.same(
    s.events.map((e) => [e.type, e.data['reason']]),
    [
      ['sip.trunk.registered', undefined],
      ['sip.trunk.down', reason],
    ],
  )
  await s.hook.waitFor(2)
  const down = s.hook.seen.map((c) => JSON.parse(c.raw.toString())).find((b) => b.event === 'sip.trunk.down')
  const example = EVENT_TYPES.find((e) => e.type === 'sip.trunk.down')!.example
  t.same(Object.keys(down.data).sort(), Object.keys(example).sort(), 'the down payload has the catalog example’s keys')
})
