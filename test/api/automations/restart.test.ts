import { Writable } from 'node:stream'
import t from 'tap'
import { createApp, listen } from '../../../api/index.js'
import { startSlackStandIn } from '../../../api/integrations/stand-ins/index.js'
import { createLogger, loadConfig, loadSecrets, ManualClock } from '../../../core/index.js'
import { migrate, openDatabase } from '../../../db/index.js'
import { BOT_TOKEN, SLACK_ON_COMPLETED } from './automation-fixtures.js'

// A run survives the process: a stop mid-attempt leaves the run `running` with its attempt open;
// the next process on the same database file marks that attempt interrupted and runs it again.

/** The app as `ozan` builds it, on a data directory; `request` speaks to its API. */
async function open(dataDir: string, clock: ManualClock) {
  const config = loadConfig({ OZAN_DATA_DIR: dataDir, OZAN_PORT: '0', OZAN_HOST: '127.0.0.1', OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' })
  const logger = createLogger('warn', new Writable({ write: (_c, _e, done) => done() }))
  const db = openDatabase(config.databaseFile)
  migrate(db)
  const app = createApp({ db, config, secrets: loadSecrets(config), logger, clock })
  const server = await listen(app, '127.0.0.1', 0, logger)
  const request = async (method: string, path: string, token: string | null, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely in tests
    return { status: res.status, body: (await res.json().catch(() => null)) as any }
  }
  const close = async () => {
    await server.close(1000)
    await app.close()
    db.close()
  }
  return { app, request, close }
}

t.test('a run in flight when the server stops is run again by the next start, and its attempts tell so', async (t) => {
  const dataDir = t.testdir({})
  const clock = new ManualClock(Date.parse('2026-11-27T09:00:00Z'))
  const slack = await startSlackStandIn({ botToken: BOT_TOKEN })
  t.teardown(() => slack.close())

  const first = await open(dataDir, clock)
  const reg = await first.request('POST', '/api/v1/auth/register', null, { email: 'owner@example.com', password: 'correct horse battery', name: 'Owner' })
  const token = reg.body.access_token as string
  const organizationId = reg.body.user.organization.id as string
  t.equal((await first.request('PUT', '/api/v1/credentials', token, { provider: 'slack', fields: { bot_token: BOT_TOKEN, base_url: slack.url } })).status, 200)
  const automation = await first.request('POST', '/api/v1/automations', token, SLACK_ON_COMPLETED)
  t.equal(automation.status, 201)
  const environmentId = first.app.services.repos.automations.byId(automation.body.id)!.environment_id

  slack.fail({ kind: 'hang' })
  first.app.services.bus.publish({
    type: 'session.completed',
    organizationId,
    environmentId,
    data: { session_uuid: 's-1', disposition: 'booked', channel: 'web' },
    occurredAt: clock.now(),
  })
  for (let i = 0; i < 200 && slack.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10))
  t.equal(slack.requests.length, 1, 'the first attempt is at Slack, hanging')
  await first.close()

  const second = await open(dataDir, clock)
  t.teardown(() => second.close())
  const runs = `/api/v1/automations/${automation.body.id}/runs`
  let page = await second.request('GET', runs, token)
  for (let i = 0; i < 200 && page.body.items[0]?.status !== 'succeeded'; i++) {
    await new Promise((r) => setTimeout(r, 10))
    page = await second.request('GET', runs, token)
  }
  t.equal(page.body.total, 1, 'still one run')
  const detail = await second.request('GET', `${runs}/${page.body.items[0].id}`, token)
  t.match(detail.body, { status: 'succeeded', attempt_count: 2 })
  t.match(detail.body.attempts, [
    { number: 1, trigger: 'event', outcome: 'interrupted', error: { code: 'interrupted' } },
    { number: 2, trigger: 'resume', outcome: 'succeeded', input: { channel: '#general', text: 'Session s-1 ended: booked (web)' } },
  ])
  t.same(
    slack.messages.map((m) => m.text),
    ['Session s-1 ended: booked (web)'],
    'posted once',
  )
})
