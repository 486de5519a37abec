import { CSeq, SipHeaders, SipRequest, type SipResponse } from '../message/index.js'
import { uacDialog } from './create.js'
import { DEFAULT_MAX_FORWARDS } from './dialog.js'
import type { DialogResult } from './errors.js'

/**
 * The ACK for a 2xx to an initial INVITE (§13.2.2.4), from the INVITE and the 2xx alone: the
 * dialog the 2xx makes (§12.1.2) gives Request-URI, Route, From and To; CSeq is the INVITE's number
 * with ACK; the INVITE's credentials are copied. No Via: the UA sends it with a new branch. For a
 * re-INVITE use `Dialog.ack`, whose route set is fixed since the dialog began.
 */
export function ack2xx(invite: SipRequest, response: SipResponse, options: { body?: Buffer; contentType?: string } = {}): DialogResult<SipRequest> {
  const dialog = uacDialog(invite, response)
  if (!dialog.ok) return dialog
  return { ok: true, value: dialog.value.ack(invite, options) }
}
