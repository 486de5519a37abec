import { randomUUID } from 'node:crypto'
import type { Clock, Logger } from '../../core/index.js'
import type { Repos, SessionRow } from '../../db/index.js'
import type { BillingRepo, CreditRow } from '../../db/repos/billing.js'
import { AgentConfig } from '../../engine/graph-runtime/index.js'
import type { Auditor } from '../audit/auditor.js'
import { ApiError } from '../http/errors.js'
import type { RequestInfo } from '../http/route.js'
import { ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import { estimate, providersOf } from './estimate.js'
import { type Cost, priceUsage } from './meter.js'
import { safeConfig, settleAnalysis, settleSession, settleTestCase, type TestRunBilled, type TokenUsage } from './settle.js'
import { CreditWatches } from './credit-watch.js'
import { databaseLiveSpend } from './live-spend.js'
import type { PaymentProvider } from './payments/provider.js'
import { type StripePayments, WebhookSignatureError } from './payments/stripe.js'
import type { PriceBook } from './pricing.js'
import type { EstimateRequestT, TopupRequestT } from './schema.js'
import { usageView } from './usage.js'

export interface BillingDeps {
  billing: BillingRepo
  repos: Repos
  book: PriceBook
  /** OZAN_BILLING=on: usage is debited and an exhausted balance refuses new sessions and calls. */
  enabled: boolean
  payments: PaymentProvider | null
  clock: Clock
  auditor: Auditor
  logger: Logger
  publicUrl: string
}

/** What the engine counted that a session row does not hold (the row has its tokens and times). */
export interface EngineCounts {
  sttAudioMs: number
  ttsCharacters: number
}

/** A live call's counts so far, for its running cost. */
export interface LiveCounts extends EngineCounts {
  callMs: number
  promptTokens: number
  completionTokens: number
}

const iso = (ms: number) => new Date(ms).toISOString()

/** Pricing, estimates, metering, the credit ledger and top-ups (docs/billing.md). */
export class BillingService {
  private readonly watches: CreditWatches

  constructor(private readonly deps: BillingDeps) {
    const { billing, clock } = this.deps
    this.watches = new CreditWatches((organizationId) => billing.balance(organizationId), databaseLiveSpend(billing, clock))
  }

  get enabled(): boolean {
    return this.deps.enabled
  }

  pricing() {
    const { book } = this.deps
    return book.entries().map((e) => ({ ...e, currency: book.currency }))
  }

  estimate(p: Principal, body: EstimateRequestT) {
    const providers = body.providers ?? providersOf(this.agentConfig(p, body.workflow_uuid), body.channel)
    const result = estimate(this.deps.book, providers, body)
    if (!Number.isSafeInteger(result.total_minor))
      throw new ValidationError([{ type: 'too_big', loc: ['body', 'calls'], msg: 'The estimate is too large to state exactly: ask for fewer calls' }])
    return result
  }

  /** The period's usage summed by provider and by agent, for the caller's organization. */
  usage(p: Principal, q: { since?: string | undefined; until?: string | undefined }) {
    const now = this.deps.clock.now()
    const monthStart = new Date(now)
    const since = q.since ? Date.parse(q.since) : Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth(), 1)
    const until = q.until ? Date.parse(q.until) : now
    if (until < since) throw new ValidationError([{ type: 'value_error', loc: ['query', 'until'], msg: 'until must not be before since', input: q.until }])
    // The default period runs up to now inclusive: a session that ended this millisecond counts.
    const summary = this.deps.billing.usageSummary(p.organizationId, since, q.until ? until : now + 1)
    return { period_start: iso(since), period_end: iso(until), currency: this.deps.book.currency, ...usageView(summary) }
  }

  credits(p: Principal) {
    const at = this.deps.billing.lastTransactionAt(p.organizationId)
    return {
      balance_minor: this.deps.billing.balance(p.organizationId),
      currency: this.deps.book.currency,
      billing_enabled: this.deps.enabled,
      updated_at: at === null ? null : iso(at),
    }
  }

  transactions(p: Principal, at: { limit: number; offset: number }) {
    const page = this.deps.billing.transactions(p.organizationId, at)
    return { items: page.items.map(transactionView), total: page.total }
  }

  /** 402 insufficient_credit when billing is on and the organization has no credit left. */
  assertCredit(organizationId: string): void {
    if (this.deps.enabled && this.deps.billing.balance(organizationId) <= 0) throw new ApiError('insufficient_credit')
  }

  /** The organization's balance now (live calls compare their running cost with it). */
  balance(organizationId: string): number {
    return this.deps.billing.balance(organizationId)
  }

  /**
   * Watches a live call against the balance (billing on; else null): `exhausted` once the
   * organization's live calls have spent what is left. The returned function stops watching.
   */
  watchCall(
    call: { organizationId: string; callId: string; config: string; channel: 'web' | 'phone' },
    counts: () => LiveCounts,
    exhausted: () => void,
  ): (() => void) | null {
    if (!this.deps.enabled) return null
    const providers = providersOf(safeConfig(call.config), call.channel)
    const spent = () => {
      const c = counts()
      return priceUsage(this.deps.book, providers, { voice: true, ...c }).amount_minor
    }
    return this.watches.watch(call.organizationId, call.callId, spent, exhausted)
  }

  /** Checks the organization's live calls now instead of at the next interval (tests). */
  checkLiveCalls(organizationId: string): void {
    this.watches.check(organizationId)
  }

  /**
   * A session has ended: with billing on, its usage is priced, recorded and debited from the
   * ledger, in one transaction, once per session; the cost goes into the end-of-call report.
   * With billing off nothing is metered (null: the report's amount stays null, as it always was).
   */
  settle(row: SessionRow, counts: EngineCounts): Cost | null {
    return this.deps.enabled ? settleSession(this.deps, row, counts) : null
  }

  /** A session's post-call analysis is done: its LLM tokens are billed (settle.ts), with billing on. */
  settleAnalysis(row: SessionRow, usage: TokenUsage): Cost | null {
    return this.deps.enabled ? settleAnalysis(this.deps, row, usage) : null
  }

  /** A test-suite case is done: its LLM tokens are billed (settle.ts), with billing on. */
  settleTestCase(run: TestRunBilled, position: number, usage: TokenUsage): Cost | null {
    return this.deps.enabled ? settleTestCase(this.deps, run, position, usage) : null
  }

  /** The recorded cost of an ended session (GET /calls/{uuid}); null while it runs or before billing existed. */
  costOf(sessionId: string): Cost | null {
    const u = this.deps.billing.usage(sessionId)
    return u ? { items: JSON.parse(u.items) as Cost['items'], amount_minor: u.amount_minor, currency: u.currency } : null
  }

  /** POST /billing/topup: a pending top-up and the provider's payment page. Nothing is credited yet. */
  async topup(p: Principal, body: TopupRequestT, req: RequestInfo) {
    const payments = this.deps.payments
    if (!payments) throw new ApiError('payments_not_configured')
    const id = randomUUID()
    const { currency } = this.deps.book
    this.deps.billing.insertTopup({
      id,
      organization_id: p.organizationId,
      provider: payments.name,
      amount_minor: body.amount_minor,
      currency,
      status: 'pending',
      external_id: null,
      created_by_user: p.userId,
      created_by_key: p.apiKeyId,
      created_at: this.deps.clock.now(),
      paid_at: null,
    })
    let checkout
    try {
      checkout = await payments.checkout({
        topupId: id,
        organizationId: p.organizationId,
        amountMinor: body.amount_minor,
        currency,
        successUrl: body.success_url ?? this.deps.publicUrl,
        cancelUrl: body.cancel_url ?? this.deps.publicUrl,
      })
    } catch (err) {
      this.deps.billing.discardTopup(id)
      this.deps.logger.warn({ err: { message: (err as Error).message }, topup_id: id }, 'billing: the payment provider refused a checkout')
      throw new ApiError('upstream_error')
    }
    if (checkout.externalId) this.deps.billing.setTopupExternalId(id, checkout.externalId)
    this.deps.auditor.record(p, req, {
      action: 'billing.topup_started',
      resourceType: 'credit_topup',
      resourceId: id,
      metadata: { provider: payments.name, amount_minor: body.amount_minor, currency },
    })
    return { url: checkout.url, provider: payments.name, topup_id: id, amount_minor: body.amount_minor, currency }
  }

  /**
   * Stripe's webhook: verified by the SDK (forged, stale: 400 and nothing credited), handled once
   * per event id (a replay answers 200 duplicate and credits nothing), and credited only for a
   * paid session of one of our pending top-ups whose amount and currency match it.
   */
  stripeWebhook(rawBody: Buffer, signature: string): { received: true; duplicate: boolean } {
    const stripe = this.deps.payments?.name === 'stripe' ? (this.deps.payments as StripePayments) : null
    if (!stripe) throw new ApiError('not_found')
    let verified
    try {
      verified = stripe.verify(rawBody, signature)
    } catch (err) {
      if (err instanceof WebhookSignatureError) throw new ApiError('invalid_signature')
      throw err
    }
    const now = this.deps.clock.now()
    if (verified.kind === 'ignored') {
      const fresh = this.deps.billing.onceForEvent('stripe', verified.eventId, verified.eventType, now, () => {})
      return { received: true, duplicate: !fresh }
    }
    const paid = verified.paid
    const fresh = this.deps.billing.onceForEvent('stripe', paid.eventId, paid.eventType, now, () => {
      const topup = this.deps.billing.topup(paid.topupId)
      if (topup?.provider !== 'stripe' || topup.amount_minor !== paid.amountMinor || topup.currency !== paid.currency.toLowerCase()) {
        this.deps.logger.warn(
          { event_id: paid.eventId, topup_id: paid.topupId },
          'billing: a paid Checkout Session matches no pending top-up; nothing credited',
        )
        return
      }
      if (!this.deps.billing.markTopupPaid(topup.id, now)) return
      this.deps.billing.append({
        organization_id: topup.organization_id,
        kind: 'topup',
        amount_minor: topup.amount_minor,
        currency: topup.currency,
        description: 'Top-up paid by card (Stripe)',
        provider: 'stripe',
        external_id: paid.checkoutId,
        created_by_user: topup.created_by_user,
        created_at: now,
      })
      this.deps.auditor.record({ organizationId: topup.organization_id, userId: null }, null, {
        action: 'billing.credited',
        resourceType: 'credit_topup',
        resourceId: topup.id,
        metadata: { provider: 'stripe', amount_minor: topup.amount_minor, event_id: paid.eventId, checkout_session: paid.checkoutId },
      })
    })
    return { received: true, duplicate: !fresh }
  }

  /**
   * The manual provider: an operator grants credit by hand (or takes some back with a negative
   * amount), recorded in the ledger and the audit trail with the operator's name and reason.
   */
  grant(g: { organizationId: string; amountMinor: number; reason: string; operator: string; topupId?: string }): CreditRow {
    if (!Number.isSafeInteger(g.amountMinor) || g.amountMinor === 0 || Math.abs(g.amountMinor) > 1_000_000_000)
      throw new RangeError('grant: the amount must be a non-zero integer of minor units, at most 1e9')
    if (!this.deps.repos.organizations.get(g.organizationId)) throw new RangeError('grant: no such organization')
    const now = this.deps.clock.now()
    const row = this.deps.repos.transaction(() => {
      if (g.topupId) {
        const t = this.deps.billing.topup(g.topupId)
        if (!t || t.organization_id !== g.organizationId || !this.deps.billing.markTopupPaid(t.id, now)) throw new RangeError('grant: no such pending top-up')
      }
      return this.deps.billing.append({
        organization_id: g.organizationId,
        kind: 'grant',
        amount_minor: g.amountMinor,
        currency: this.deps.book.currency,
        description: g.reason.slice(0, 500),
        provider: 'manual',
        ...(g.topupId && { external_id: g.topupId }),
        created_at: now,
      })!
    })
    this.deps.auditor.record({ organizationId: g.organizationId, userId: null }, null, {
      action: 'billing.granted',
      resourceType: 'credit_transaction',
      resourceId: row.id,
      metadata: { operator: g.operator.slice(0, 200), amount_minor: g.amountMinor, reason: g.reason.slice(0, 500), topup_id: g.topupId ?? null },
    })
    return row
  }

  private agentConfig(p: Principal, workflowId: string | undefined): AgentConfig {
    if (workflowId === undefined) return AgentConfig.parse({})
    const wf = this.deps.repos.workflows.get({ organizationId: p.organizationId, environmentId: p.environmentId }, workflowId)
    if (!wf) throw new ApiError('not_found')
    const config = wf.latest_version === null ? wf.draft_config : (this.deps.repos.workflows.version(wf.id, wf.latest_version)?.config ?? wf.draft_config)
    return safeConfig(config)
  }
}

function transactionView(r: CreditRow) {
  return {
    id: r.id,
    kind: r.kind,
    amount_minor: r.amount_minor,
    balance_after_minor: r.balance_after_minor,
    currency: r.currency,
    description: r.description,
    session_uuid: r.session_id,
    provider: r.provider,
    created_at: iso(r.created_at),
  }
}
