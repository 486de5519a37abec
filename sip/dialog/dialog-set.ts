import type { SipRequest, SipResponse } from '../message/index.js'
import type { Dialog } from './dialog.js'
import { type DialogId, dialogKey, requestDialogIdOf, responseDialogIdOf } from './dialog-id.js'

export const DEFAULT_DIALOG_SET = {
  /** Well above the concurrent calls one node carries; the caller answers 503 when it is full. */
  maxDialogs: 10_000,
} as const

/** The dialogs of a UA by ID, bounded: a request or response finds its dialog in one lookup. */
export class DialogSet {
  readonly #dialogs = new Map<string, Dialog>()
  readonly maxDialogs: number

  constructor(options: { maxDialogs?: number } = {}) {
    this.maxDialogs = options.maxDialogs ?? DEFAULT_DIALOG_SET.maxDialogs
    if (!Number.isInteger(this.maxDialogs) || this.maxDialogs < 1) throw new RangeError('maxDialogs must be a positive integer')
  }

  get size(): number {
    return this.#dialogs.size
  }

  /** False when the set is full or holds a dialog with that ID already. */
  add(dialog: Dialog): boolean {
    const key = dialogKey(dialog.id)
    if (this.#dialogs.has(key) || this.#dialogs.size >= this.maxDialogs) return false
    this.#dialogs.set(key, dialog)
    return true
  }

  get(id: DialogId): Dialog | undefined {
    return this.#dialogs.get(dialogKey(id))
  }

  delete(id: DialogId): boolean {
    return this.#dialogs.delete(dialogKey(id))
  }

  /** The dialog of a received request (To tag ours, From tag theirs); undefined out of a dialog or unknown (481, §12.2.2). */
  forRequest(request: SipRequest): Dialog | undefined {
    const id = requestDialogIdOf(request)
    return id && this.get(id)
  }

  /** The dialog of a response to our request (From tag ours, To tag theirs). */
  forResponse(response: SipResponse): Dialog | undefined {
    const id = responseDialogIdOf(response)
    return id && this.get(id)
  }

  /** Drops terminated dialogs; returns how many. */
  prune(): number {
    let removed = 0
    for (const [key, dialog] of this.#dialogs) {
      if (dialog.state === 'terminated') {
        this.#dialogs.delete(key)
        removed++
      }
    }
    return removed
  }
}
