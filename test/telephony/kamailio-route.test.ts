// kamailio as the carrier (issue #21 item 8): the trunk registers to it with Digest through the
// running SIP service (sip.trunk.registered), and a call kamailio routes to the registered contact
// — Request-URI our account, the dialled number only in To, kamailio in the Record-Route — reaches
// the number's agent, is heard, and ends with BYE through kamailio.
import t from 'tap'
import type { DomainEvent } from '../../core/index.js'
import { skipWithoutKamailio, startKamailio } from '../helpers/kamailio.js'
import { runSipp, skipWithoutSipp } from '../helpers/sipp.js'
import { skipWithoutEspeak } from '../helpers/speech.js'
import { expectStatus } from '../helpers/tenancy-fixtures.js'
import { callerScenario } from './fixtures/scenarios.js'
import { phoneScene, speechPcap } from './scene.js'

const skip = skipWithoutKamailio() || (await skipWithoutSipp()) || (await skipWithoutEspeak())
const ACCOUNT = { username: 'ozan-trunk', password: 'kamailio-trunk-pass' }

t.test('a call kamailio routes to the registered trunk reaches the agent', { skip }, async (t) => {
  const kamailio = await startKamailio(t, { users: [ACCOUNT] })
  const s = await phoneScene(t)
  const events: DomainEvent[] = []
  t.teardown(s.a.services.bus.subscribe((e) => void (e.type.startsWith('sip.trunk.') && events.push(e))))
  const line = await s.line({
    trunk: {
      host: '127.0.0.1',
      port: kamailio.port,
      username: ACCOUNT.username,
      password: ACCOUNT.password,
      register: true,
      register_expires_s: 600,
      allowed_sources: [],
    },
  })
  const trunk = async () => expectStatus(await s.a.request('GET', `/api/v1/sip-trunks/${line.trunkId}`, { token: s.owner.token }), 200, 'trunk')
  for (let i = 0; i < 100 && (await trunk()).registration.state !== 'registered'; i++) await new Promise((r) => setTimeout(r, 100))
  t.equal((await trunk()).registration.state, 'registered', 'registered with kamailio through its Digest challenge', {
    diagnostic: true,
    kamailio: kamailio.output().slice(-2000),
  })
  t.same(
    events.map((e) => e.type),
    ['sip.trunk.registered'],
    'sip.trunk.registered once',
  )

  s.dg.script('Alice')
  const run = await runSipp({
    scenario: callerScenario({ waitMs: 4000, listenMs: 3500, to: line.number }),
    target: `127.0.0.1:${kamailio.port}`,
    args: ['-s', ACCOUNT.username],
    files: { 'speech.pcap': await speechPcap('My name is Alice') },
  })
  t.equal(run.code, 0, 'the call went through kamailio both ways', { diagnostic: true, output: run.output })
  const [call] = await s.finishedCalls(1)
  t.match(call, { channel: 'phone', status: 'completed' })
  const detail = expectStatus(await s.a.request('GET', `/api/v1/calls/${call!.call_uuid}`, { token: s.owner.token }), 200, 'detail')
  t.ok(
    detail.transcript.some((l: { role: string; text: string }) => l.role === 'user' && l.text === 'Alice'),
    'the caller was heard',
  )
})
