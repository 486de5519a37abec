// Shared by the automation tests (not a test file: tap includes only *.test.ts).
import type { Test } from 'tap'
import { startSlackStandIn, type SlackStandIn } from '../../../api/integrations/stand-ins/index.js'
import { ManualClock } from '../../../core/index.js'
import { startTestApp, type Reply, type RequestOptions, type TestApp } from '../../helpers/app.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

export const A = '/api/v1/automations'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely in tests, as the other suites do
export type Body = Record<string, any>
export const BOT_TOKEN = 'xoxb-automations-test-0123456789'

export interface Scene {
  a: TestApp
  slack: SlackStandIn
  clock: ManualClock
  owner: Actor
  /** The owner's environments by slug (dev, staging, prod) → id, and `default`: where requests without X-Environment-Id act. */
  envs: Record<string, string>
  send(method: string, path: string, o?: RequestOptions): Promise<Reply>
}

/** The app (loopback allowed, where the stand-in listens) on a manual clock, an owner with a Slack credential. */
export async function scene(t: Test, env: Record<string, string> = {}): Promise<Scene> {
  const slack = await startSlackStandIn({ botToken: BOT_TOKEN })
  t.teardown(() => slack.close())
  const clock = new ManualClock(Date.parse('2026-11-27T09:00:00Z'))
  const a = await startTestApp({
    clock,
    env: { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8', OZAN_AUTOMATION_RETRY_BASE_MS: '1000', OZAN_AUTOMATION_MAX_ATTEMPTS: '3', ...env },
  })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  await storeSlack(a, owner, slack)
  const send = (method: string, path: string, o: RequestOptions = {}) => a.request(method, path, { token: owner.token, ...o })
  return { a, slack, clock, owner, envs: await environments(a, owner), send }
}

export async function storeSlack(a: TestApp, owner: Actor, slack: SlackStandIn): Promise<void> {
  const body = { provider: 'slack', fields: { bot_token: BOT_TOKEN, base_url: slack.url } }
  expectStatus(await a.request('PUT', '/api/v1/credentials', { token: owner.token, body }), 200, 'store slack credential')
}

export async function environments(a: TestApp, owner: Actor): Promise<Record<string, string>> {
  const projects = expectStatus(await a.request('GET', '/api/v1/projects', { token: owner.token }), 200, 'projects')
  const def = projects.find((p: { is_default: boolean }) => p.is_default)
  const envs = def.environments as { slug: string; id: string; is_default: boolean }[]
  return { ...Object.fromEntries(envs.map((e) => [e.slug, e.id])), default: envs.find((e) => e.is_default)!.id }
}

/** A Slack automation on session.completed that posts the session and its disposition to #general. */
export const SLACK_ON_COMPLETED = {
  name: 'Post finished sessions',
  trigger: { event: 'session.completed' },
  action: {
    integration: 'slack',
    action: 'post_message',
    input: { channel: '#general', text: 'Session {{data.session_uuid}} ended: {{data.disposition}} ({{data.channel}})' },
  },
}

export async function createAutomation(s: Scene, body: Record<string, unknown> = SLACK_ON_COMPLETED, o: RequestOptions = {}): Promise<Body> {
  return expectStatus(await s.send('POST', A, { body, ...o }), 201, 'create automation')
}

/** Publishes an event on the app's bus, as a service would. */
export function publish(s: Scene, type: string, data: Record<string, unknown>, o: { env?: string | null; org?: string } = {}): void {
  s.a.services.bus.publish({
    type,
    organizationId: o.org ?? s.owner.organizationId,
    environmentId: o.env === undefined ? s.envs.default! : o.env,
    data,
    occurredAt: s.clock.now(),
  })
}

/**
 * Works the queue until no run of the automation is pending or running: each round lets runs in
 * flight settle, then moves the manual clock past any backoff and wakes the worker.
 */
export async function settle(s: Scene, rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await s.a.services.automationWorker.settled()
    const open = s.a.db.prepare("SELECT count(*) AS n FROM automation_runs WHERE status IN ('pending', 'running')").get() as { n: number }
    if (open.n === 0) return
    s.clock.advance(60_000)
    s.a.services.automationWorker.wake()
    await new Promise((r) => setTimeout(r, 5))
  }
  throw new Error('automation runs did not finish')
}

export async function runsOf(s: Scene, automationId: string, o: RequestOptions = {}): Promise<Body[]> {
  return expectStatus(await s.send('GET', `${A}/${automationId}/runs`, o), 200, 'list runs').items
}
