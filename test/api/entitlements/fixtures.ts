import type { Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { ManualClock } from '../../../core/index.js'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { CALL_GRAPH, VOICE_CONFIG } from '../calls/fixtures.js'

export const E = '/api/v1/entitlements'
/** Mid-month, so a test's calls of "this month" never straddle a month boundary. */
export const NOW = Date.UTC(2026, 5, 15, 12, 0, 0)

/** A small plan (the default), a plan without limits, and one without web calls. */
export const PLANS = {
  default_plan: 'small',
  plans: [
    {
      key: 'small',
      name: 'Small',
      description: 'For trying things out',
      limits: {
        agents: 2,
        live_calls: 1,
        monthly_minutes: 10,
        knowledge_base_documents: 2,
        knowledge_base_bytes: 100,
        members: 2,
        webhook_endpoints: 1,
        api_keys: 2,
      },
    },
    { key: 'roomy', name: 'Roomy', limits: { live_calls: 5 } },
    { key: 'no-web', name: 'No web', features: { web_calls: false } },
  ],
}

export interface PlanScene {
  a: TestApp
  owner: Actor
  /** Puts the owner's organization on a plan, as the operator's command does. */
  assign(plan: string, org?: Actor): void
}

/** A real app whose operator configured `plans` (OZAN_PLANS_FILE), and an owner on the default plan. */
export async function planScene(t: Test, plans: unknown = PLANS, env: Record<string, string> = {}): Promise<PlanScene> {
  const file = path.join(t.testdir({}), 'plans.json')
  fs.writeFileSync(file, JSON.stringify(plans))
  const a = await startTestApp({ env: { OZAN_PLANS_FILE: file, ...env }, clock: new ManualClock(NOW) })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const assign = (plan: string, org = owner) =>
    a.services.repos.entitlements.assignPlan({ organization_id: org.organizationId, plan_key: plan, assigned_at: a.clock.now(), note: null })
  return { a, owner, assign }
}

/** A published agent a web call can run (Deepgram key stored: minting contacts nobody). */
export async function voiceAgent(a: TestApp, owner: Actor): Promise<string> {
  const body = { provider: 'deepgram', fields: { api_key: 'dg-test-key' } }
  expectStatus(await a.request('PUT', '/api/v1/credentials', { token: owner.token, body }), 200, 'store deepgram credential')
  const W = '/api/v1/workflows'
  const id = expectStatus(await a.request('POST', W, { token: owner.token, body: { name: 'Voice agent' } }), 201, 'create agent').id as string
  expectStatus(await a.request('PUT', `${W}/${id}/definition`, { token: owner.token, body: CALL_GRAPH }), 200, 'put definition')
  expectStatus(await a.request('PUT', `${W}/${id}/config`, { token: owner.token, body: VOICE_CONFIG }), 200, 'put config')
  expectStatus(await a.request('POST', `${W}/${id}/publish`, { token: owner.token }), 200, 'publish')
  return id
}

/** A voice call recorded as it would be after it ran: `minutes` long, ended at `endedAt`. */
export function recordVoiceCall(a: TestApp, owner: Actor, o: { minutes: number; endedAt: number; status?: string; turns?: number; channel?: string }): void {
  const env = a.db.prepare('SELECT id FROM environments WHERE organization_id = ? ORDER BY created_at LIMIT 1').get(owner.organizationId) as { id: string }
  const started = o.endedAt - o.minutes * 60_000
  a.db
    .prepare(
      `INSERT INTO sessions (id, organization_id, environment_id, workflow_id, channel, status, definition, config, state, turn_count, started_at, ended_at, updated_at)
       VALUES (?, ?, ?, NULL, ?, ?, '{}', '{}', '{}', ?, ?, ?, ?)`,
    )
    .run(crypto.randomUUID(), owner.organizationId, env.id, o.channel ?? 'web', o.status ?? 'completed', o.turns ?? 3, started, o.endedAt, o.endedAt)
}
