export { type DialogResult, DialogError, type DialogErrorCode, DialogStateError } from './errors.js'
export {
  DEFAULT_MAX_FORWARDS,
  Dialog,
  type DialogInit,
  type DialogState,
  type InDialogRequestOptions,
  type InDialogVerdict,
  requestTarget,
  TARGET_REFRESH_METHODS,
} from './dialog.js'
export { uacDialog, uasDialog, type UasDialogOptions } from './create.js'
// The ACK of a non-2xx and CANCEL are the transaction layer's (sip/transaction: ackFor, cancelFor).
export { ack2xx } from './requests.js'
export { DEFAULT_DIALOG_SET, DialogSet } from './dialog-set.js'
export { type DialogId, dialogKey, requestDialogIdOf, responseDialogIdOf } from './dialog-id.js'
export {
  DEFAULT_SESSION_TIMER,
  hasOptionTag,
  MIN_SESSION_INTERVAL_S,
  negotiateAsUac,
  negotiateAsUas,
  parseMinSe,
  readSessionTimerHeaders,
  type Refresher,
  retryAfter422,
  SessionExpires,
  type SessionTimerChoice,
  type SessionTimerPolicy,
  sessionTimerRequestHeaders,
  type UasSessionTimerDecision,
} from './session-expires.js'
export { SessionTimer, type SessionTimerAction, type SessionTimerState, type SessionTimerTerms } from './session-timer.js'
