/**
 * A way to pay for credit. A checkout gives the buyer a page to pay on; the credit itself lands
 * only when the provider confirms payment (Stripe: its signed webhook), never on the redirect.
 */
export interface Checkout {
  /** The payment page. */
  url: string
  /** The provider's id of this checkout (a Checkout Session id), null when it has none. */
  externalId: string | null
}

export interface CheckoutRequest {
  topupId: string
  organizationId: string
  amountMinor: number
  currency: string
  successUrl: string
  cancelUrl: string
}

export interface PaymentProvider {
  readonly name: 'stripe' | 'manual'
  checkout(r: CheckoutRequest): Promise<Checkout>
}
