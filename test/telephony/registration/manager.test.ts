// The registration manager over a fake user agent and an in-memory trunk table: where REGISTERs
// go (guarded), what is written and published, restarts, stops and close().
import { Writable } from 'node:stream'
import t from 'tap'
import { allowList, createLogger, type DomainEvent, InProcessBus } from '../../../core/index.js'
import type { SipTrunkRow } from '../../../db/index.js'
import type { Peer, SipRequest } from '../../../sip/index.js'
import type { ClientHandlers } from '../../../telephony/sip/user-agent.js'
import { RegistrationManager, type RegistrationUserAgent } from '../../../telephony/registration/index.js'
import { ManualTimers, reply } from './fixtures.js'

const TRUNK: SipTrunkRow = {
  id: '5e7a2c10-3b4d-4c6e-9f81-a2b3c4d5e6f7',
  organization_id: 'org-1',
  environment_id: 'env-1',
  name: 'Carrier A',
  host: '203.0.113.10',
  port: 5060,
  transport: 'udp',
  outbound_proxy: null,
  domain: 'carrier.example',
  username: 'ozan-trunk',
  auth_username: null,
  key_id: 'k1',
  password_sealed: Buffer.from('sealed-1'),
  register: 1,
  register_expires_s: 600,
  allowed_sources: '[]',
  registration_state: 'unregistered',
  registration_error: null,
  registration_changed_at: null,
  registered_until: null,
  created_by: null,
  created_at: 0,
  updated_at: 0,
}

class FakeUserAgent implements RegistrationUserAgent {
  readonly publicHost = '198.51.100.7'
  readonly sent: { request: SipRequest; target: Peer; handlers: ClientHandlers }[] = []
  contact(user: string, transport: string): string {
    return `<sip:${user}@198.51.100.7:5060${transport === 'tcp' ? ';transport=tcp' : ''}>`
  }
  request(request: SipRequest, target: Peer, handlers: ClientHandlers): void {
    this.sent.push({ request, target, handlers })
  }
  /** Answers the latest REGISTER. */
  answer(status: number, reason: string, fields: [string, string][] = []): void {
    const last = this.sent.at(-1)!
    last.handlers.response(reply(last.request, status, reason, fields))
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

function setup(rows: SipTrunkRow[] = [TRUNK], o: { passwordOf?: (row: SipTrunkRow) => string | null } = {}) {
  const table = new Map(rows.map((r) => [r.id, { ...r }]))
  const repos = {
    sipTrunks: {
      all: () => [...table.values()],
      byId: (id: string) => table.get(id),
      setRegistration: (id: string, r: Partial<SipTrunkRow>) => void (table.has(id) && table.set(id, { ...table.get(id)!, ...r })),
    },
  }
  const bus = new InProcessBus()
  const events: DomainEvent[] = []
  bus.subscribe((e) => events.push(e))
  const logs: string[] = []
  const ua = new FakeUserAgent()
  const clock = new ManualTimers()
  const manager = new RegistrationManager({
    ua,
    repos,
    bus,
    passwordOf: o.passwordOf ?? (() => 'trunk password'),
    guard: { allow: allowList(['203.0.113.0/24', '192.0.2.0/24']) },
    logger: createLogger('debug', new Writable({ write: (c, _e, done) => (logs.push(String(c)), done()) })),
    clock,
    random: () => 0,
  })
  return { table, events, logs, ua, clock, manager, row: (id = TRUNK.id) => table.get(id)! }
}

t.test('start() registers each trunk set to register, to its host and port on its transport; the row and the bus follow', async (t) => {
  const off = { ...TRUNK, id: 'off', register: 0 }
  const s = setup([TRUNK, off])
  s.manager.start()
  await settle()
  t.equal(s.ua.sent.length, 1, 'the trunk with register = 0 is left alone')
  t.same(s.ua.sent[0]!.target, { transport: 'UDP', host: '203.0.113.10', port: 5060 })
  t.equal(s.row().registration_state, 'registering')
  s.ua.answer(200, 'OK', [['Expires', '600']])
  t.match(s.row(), { registration_state: 'registered', registration_error: null, registered_until: s.clock.now() + 600_000 })
  t.same(s.events, [
    {
      type: 'sip.trunk.registered',
      organizationId: 'org-1',
      environmentId: 'env-1',
      data: { trunk_id: TRUNK.id, name: 'Carrier A', registrar: '203.0.113.10' },
      occurredAt: s.clock.now(),
    },
  ])
  t.equal(s.manager.stateOf(TRUNK.id), 'registered')
  t.equal(s.clock.fireNext(), 536_000, 'the refresh timer is set on the injected clock')
  await settle()
  t.equal(s.ua.sent.length, 2)
  t.equal(s.ua.sent[1]!.request.headers.get('Call-ID'), s.ua.sent[0]!.request.headers.get('Call-ID'))
})

t.test('an outbound proxy is the next hop: the REGISTER goes to it over the trunk’s transport, with a Route naming it', async (t) => {
  const s = setup([{ ...TRUNK, outbound_proxy: '192.0.2.20:5070', transport: 'tcp' }])
  s.manager.start()
  await settle()
  t.same(s.ua.sent[0]!.target, { transport: 'TCP', host: '192.0.2.20', port: 5070 })
  t.equal(s.ua.sent[0]!.request.headers.get('Route'), '<sip:192.0.2.20:5070;transport=tcp;lr>')
  t.equal(s.ua.sent[0]!.request.headers.get('Contact'), '<sip:ozan-trunk@198.51.100.7:5060;transport=tcp>')
})

t.test('a destination the outbound guard refuses is a failure with that reason; nothing is sent', async (t) => {
  const s = setup([{ ...TRUNK, host: '10.1.2.3' }])
  s.manager.start()
  await settle()
  t.equal(s.ua.sent.length, 0)
  t.match(s.row(), { registration_state: 'failed', registration_error: 'destination refused by the outbound guard' })
  t.same(s.events, [])
  t.equal(s.clock.fireNext(), 30_000, 'and it is retried with backoff, checked again each time')
  await settle()
  t.equal(s.ua.sent.length, 0)
})

t.test('timeouts and transport errors of the user agent are failures with their reasons', async (t) => {
  const s = setup()
  s.manager.start()
  await settle()
  s.ua.sent[0]!.handlers.failed('timeout')
  t.equal(s.row().registration_error, 'registration timed out')
  s.clock.fireNext()
  await settle()
  s.ua.sent[1]!.handlers.failed('transport_error')
  t.equal(s.row().registration_error, 'could not reach the registrar (transport error)')
})

t.test('a renamed trunk keeps its registration; changed settings restart it: old binding removed, new Call-ID, no second "registered"', async (t) => {
  const s = setup()
  s.manager.start()
  await settle()
  s.ua.answer(200, 'OK')
  s.table.set(TRUNK.id, { ...s.row(), name: 'Carrier B' })
  s.manager.trunkChanged(TRUNK.id)
  await settle()
  t.equal(s.ua.sent.length, 1, 'a new name sends nothing')
  s.table.set(TRUNK.id, { ...s.row(), password_sealed: Buffer.from('sealed-2') })
  s.manager.trunkChanged(TRUNK.id)
  await settle()
  const [, unregister, register] = s.ua.sent
  t.equal(unregister!.request.headers.get('Expires'), '0', 'the old registration unregisters')
  t.equal(unregister!.request.headers.get('Call-ID'), s.ua.sent[0]!.request.headers.get('Call-ID'))
  t.equal(register!.request.headers.get('Expires'), '600')
  t.not(register!.request.headers.get('Call-ID'), unregister!.request.headers.get('Call-ID'), 'a new registration, a new Call-ID')
  unregister!.handlers.response(reply(unregister!.request, 200, 'OK'))
  t.equal(s.row().registration_state, 'registering', 'the old registration’s answer writes nothing')
  register!.handlers.response(reply(register!.request, 403, 'Forbidden'))
  t.same(
    s.events.map((e) => [e.type, e.data['name'], e.data['reason']]),
    [
      ['sip.trunk.registered', 'Carrier A', undefined],
      ['sip.trunk.down', 'Carrier B', '403 Forbidden'],
    ],
    'the new settings failing is down, under the new name',
  )
})

t.test('a deleted trunk or one set not to register unregisters and publishes nothing', async (t) => {
  const s = setup([TRUNK, { ...TRUNK, id: 'second' }])
  s.manager.start()
  await settle()
  for (const sent of s.ua.sent) sent.handlers.response(reply(sent.request, 200, 'OK'))
  s.table.delete(TRUNK.id)
  s.manager.trunkChanged(TRUNK.id)
  s.table.set('second', { ...s.row('second'), register: 0 })
  s.manager.trunkChanged('second')
  await settle()
  t.same(
    s.ua.sent.slice(2).map((x) => x.request.headers.get('Expires')),
    ['0', '0'],
  )
  t.equal(s.row('second').registration_state, 'unregistered')
  t.equal(s.manager.stateOf('second'), undefined)
  t.same(
    s.events.map((e) => e.type),
    ['sip.trunk.registered', 'sip.trunk.registered'],
  )
})

t.test('close() unregisters every trunk and waits for the answers, at most its timeout', async (t) => {
  const s = setup()
  s.manager.start()
  await settle()
  s.ua.answer(200, 'OK')
  const closing = s.manager.close(5_000)
  await settle()
  t.equal(s.ua.sent.at(-1)!.request.headers.get('Expires'), '0')
  s.ua.answer(200, 'OK')
  await closing
  t.equal(s.clock.pending, 0, 'no timer left')
  s.manager.trunkChanged(TRUNK.id)
  await settle()
  t.equal(s.ua.sent.length, 2, 'a closed manager starts nothing')

  const silent = setup()
  silent.manager.start()
  await settle()
  silent.ua.answer(200, 'OK')
  const started = Date.now()
  await silent.manager.close(50)
  t.ok(Date.now() - started < 2_000, 'an unanswered unregister does not hold close() past its bound')
})

t.test('a password that cannot be opened fails at the challenge, and never reaches the logs', async (t) => {
  const s = setup([TRUNK], {
    passwordOf: () => {
      throw Object.assign(new Error('bad tag for trunk password hunter2'), { name: 'CredentialDecryptError' })
    },
  })
  s.manager.start()
  await settle()
  s.ua.answer(401, 'Unauthorized', [['WWW-Authenticate', 'Digest realm="carrier.example", nonce="abc", qop="auth"']])
  t.equal(s.row().registration_error, '401 Unauthorized: no password is set for the trunk')
  const text = s.logs.join('')
  t.match(text, /sip trunk password could not be opened/)
  t.notMatch(text, /hunter2/)
})

t.test('a row the API would have refused (a username no URI can hold) is recorded as failed instead of throwing at the caller', async (t) => {
  const s = setup([{ ...TRUNK, username: 'two words' }])
  t.doesNotThrow(() => s.manager.start())
  await settle()
  t.equal(s.ua.sent.length, 0)
  t.match(s.row(), { registration_state: 'failed', registration_error: 'invalid registration settings' })
})
