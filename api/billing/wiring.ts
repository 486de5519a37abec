import type { Clock, Config, Logger } from '../../core/index.js'
import type { Db, Repos } from '../../db/index.js'
import { BillingRepo } from '../../db/repos/billing.js'
import type { Auditor } from '../audit/auditor.js'
import { ManualPayments } from './payments/manual.js'
import type { PaymentProvider } from './payments/provider.js'
import { StripePayments } from './payments/stripe.js'
import { PriceBook, readPriceFile } from './pricing.js'
import { BillingService } from './service.js'

/** The billing service from the configuration: price book (defaults + the operator's file), payments. */
export function createBilling(o: { db: Db; repos: Repos; config: Config; clock: Clock; auditor: Auditor; logger: Logger }): BillingService {
  const b = o.config.billing
  const book = PriceBook.withOverrides(b.currency, b.pricesFile ? readPriceFile(b.pricesFile) : [])
  let payments: PaymentProvider | null = null
  if (b.payments === 'stripe') payments = new StripePayments({ secretKey: b.stripeSecretKey!, webhookSecret: b.stripeWebhookSecret!, apiUrl: b.stripeApiUrl })
  else if (b.payments === 'manual') payments = new ManualPayments(b.manualUrl!)
  return new BillingService({
    billing: new BillingRepo(o.db),
    repos: o.repos,
    book,
    enabled: b.enabled,
    payments,
    clock: o.clock,
    auditor: o.auditor,
    logger: o.logger,
    publicUrl: o.config.publicUrl,
  })
}
