import type { Checkout, CheckoutRequest, PaymentProvider } from './provider.js'

/**
 * For operators who take payment their own way (invoice, bank transfer): a top-up is recorded
 * pending and the buyer is sent to the operator's page (OZAN_BILLING_MANUAL_URL) with its id;
 * the operator grants the credit by hand (`ozan-billing grant`, BillingService.grant), audited.
 */
export class ManualPayments implements PaymentProvider {
  readonly name = 'manual'

  constructor(private readonly pageUrl: string) {}

  async checkout(r: CheckoutRequest): Promise<Checkout> {
    const url = new URL(this.pageUrl)
    url.searchParams.set('topup_id', r.topupId)
    url.searchParams.set('amount_minor', String(r.amountMinor))
    url.searchParams.set('currency', r.currency)
    return { url: url.toString(), externalId: null }
  }
}
