// Shared by the billing tests (not a test file: tap includes only *.test.ts).
import type { Test } from 'tap'
import { ManualClock } from '../../../core/index.js'
import type { DomainEvent } from '../../../core/index.js'
import { startTestApp, type Reply, type RequestOptions, type TestApp } from '../../helpers/app.js'
import { newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

export const B = '/api/v1/billing'
export const T0 = Date.parse('2026-03-10T12:00:00Z')

export interface BillingScene {
  a: TestApp
  clock: ManualClock
  owner: Actor
  send(method: string, path: string, o?: RequestOptions): Promise<Reply>
  events: DomainEvent[]
}

/** An app on a manual clock (billing off unless env says on), one owner, the bus recorded. */
export async function billingScene(t: Test, env: Record<string, string> = {}): Promise<BillingScene> {
  const clock = new ManualClock(T0)
  const a = await startTestApp({ clock, env })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const events: DomainEvent[] = []
  t.teardown(a.services.bus.subscribe((e) => events.push(e)))
  const send = (method: string, path: string, o: RequestOptions = {}) => a.request(method, path, { token: owner.token, ...o })
  return { a, clock, owner, send, events }
}

/** The ledger's own sum, read with SQL independent of the repository. */
export function ledgerSum(a: TestApp, organizationId: string): number {
  return (a.db.prepare('SELECT coalesce(sum(amount_minor), 0) AS s FROM credit_transactions WHERE organization_id = ?').get(organizationId) as { s: number }).s
}
