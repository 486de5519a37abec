import Stripe from 'stripe'
import type { Checkout, CheckoutRequest, PaymentProvider } from './provider.js'

export interface StripeOptions {
  secretKey: string
  webhookSecret: string
  /** The API's base URL; default https://api.stripe.com (tests point it at the stand-in). */
  apiUrl?: string | undefined
  /** A webhook older than this is refused (Stripe's own default: 300 s). */
  toleranceS?: number
  timeoutMs?: number
}

/** What a verified payment event says, once it is one that pays for a top-up. */
export interface PaidCheckout {
  eventId: string
  eventType: string
  topupId: string
  checkoutId: string
  amountMinor: number
  currency: string
}

export type VerifiedEvent = { kind: 'paid'; paid: PaidCheckout } | { kind: 'ignored'; eventId: string; eventType: string }

/** Thrown when a webhook's signature is missing, forged or too old: answered 400, nothing credited. */
export class WebhookSignatureError extends Error {}

/**
 * Stripe Checkout through the official SDK: a Checkout Session per top-up (its id the idempotency
 * key, so a retried create never makes two), and `checkout.session.completed` webhooks verified
 * with the SDK (HMAC over the raw body, timestamp within the tolerance).
 */
export class StripePayments implements PaymentProvider {
  readonly name = 'stripe'
  private readonly stripe: Stripe

  constructor(private readonly o: StripeOptions) {
    const api = new URL(o.apiUrl ?? 'https://api.stripe.com')
    this.stripe = new Stripe(o.secretKey, {
      host: api.hostname,
      port: api.port || (api.protocol === 'https:' ? 443 : 80),
      protocol: api.protocol === 'http:' ? 'http' : 'https',
      timeout: o.timeoutMs ?? 20_000,
      maxNetworkRetries: 1,
      telemetry: false,
    })
  }

  async checkout(r: CheckoutRequest): Promise<Checkout> {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [{ quantity: 1, price_data: { currency: r.currency, unit_amount: r.amountMinor, product_data: { name: 'Ozan credit' } } }],
        client_reference_id: r.topupId,
        metadata: { topup_id: r.topupId, organization_id: r.organizationId },
        success_url: r.successUrl,
        cancel_url: r.cancelUrl,
      },
      { idempotencyKey: `ozan-topup-${r.topupId}` },
    )
    if (!session.url) throw new Error('Stripe returned a Checkout Session without a url')
    return { url: session.url, externalId: session.id }
  }

  /** Verifies a webhook (raw body, Stripe-Signature) and reads the payment it reports, if any. */
  verify(rawBody: Buffer, signature: string): VerifiedEvent {
    let event: Stripe.Event
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.o.webhookSecret, this.o.toleranceS ?? 300)
    } catch (err) {
      throw new WebhookSignatureError((err as Error).message)
    }
    // An asynchronous payment method completes the session unpaid and pays later (async_payment_succeeded).
    const paying = event.type === 'checkout.session.completed' || event.type === 'checkout.session.async_payment_succeeded'
    if (!paying) return { kind: 'ignored', eventId: event.id, eventType: event.type }
    const s = event.data.object as Stripe.Checkout.Session
    const topupId = s.client_reference_id ?? s.metadata?.['topup_id']
    if (s.payment_status !== 'paid' || !topupId || s.amount_total === null || !s.currency) return { kind: 'ignored', eventId: event.id, eventType: event.type }
    return { kind: 'paid', paid: { eventId: event.id, eventType: event.type, topupId, checkoutId: s.id, amountMinor: s.amount_total, currency: s.currency } }
  }
}
