/** Why a dialog could not be made from a message. Stable codes. */
export type DialogErrorCode =
  /** The response cannot create a dialog: 100, or a final non-2xx (§12.1). */
  | 'not_dialog_creating'
  /** A dialog-creating response without a To tag, or a request without a From tag (§12.1.1, §12.1.2). */
  | 'no_tag'
  /** No single Contact URI to be the remote target (§12.1.1, §12.1.2), or none of ours to send. */
  | 'no_contact'
  /** A field the dialog reads is missing or does not parse (only in messages built in code). */
  | 'malformed'

export class DialogError extends Error {
  constructor(
    readonly code: DialogErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'DialogError'
  }
}

export type DialogResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: DialogError }

export function dialogFail<T>(code: DialogErrorCode, message: string): DialogResult<T> {
  return { ok: false, error: new DialogError(code, message) }
}

/** A transition the state machine does not allow: a programming error of the caller, so thrown. */
export class DialogStateError extends Error {
  constructor(from: string, to: string) {
    super(`dialog cannot go from ${from} to ${to}`)
    this.name = 'DialogStateError'
  }
}
