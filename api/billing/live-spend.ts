import type { Clock } from '../../core/index.js'
import type { BillingRepo } from '../../db/repos/billing.js'
import { CREDIT_CHECK_EVERY_MS, type LiveSpendLedger } from './credit-watch.js'

/** A live call's spend not refreshed for this many checks is a dead process's, and ignored. */
export const LIVE_SPEND_STALE_CHECKS = 3

/**
 * The live spend of every process on this database (table live_call_spend): each check writes this
 * process's calls and reads the organization's total; a settled call's row goes with its debit.
 */
export function databaseLiveSpend(billing: BillingRepo, clock: Clock, everyMs = CREDIT_CHECK_EVERY_MS): LiveSpendLedger {
  return {
    record: (organizationId, spends) => {
      const now = clock.now()
      return billing.recordLiveSpend(organizationId, spends, now, now - LIVE_SPEND_STALE_CHECKS * everyMs)
    },
    forget: (callId) => billing.forgetLiveSpend(callId),
  }
}
