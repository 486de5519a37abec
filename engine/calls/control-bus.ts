/**
 * Live call control (POST /api/v1/calls/{uuid}/control) travels from the shell to the engine worker
 * that holds the call over this bus. A worker subscribes while it holds a call; publish() answers
 * how many workers received the message, so the API can say `receivers: 0` once the call is over.
 * The in-process bus serves `npm start` (shell and engine in one process); a Redis implementation
 * of the same interface is what lets shell and engines run apart.
 */

export type CallControl =
  /** Speak `text`; `interrupt` cuts the current line (as a barge-in would) instead of waiting for it. */
  | { action: 'say'; text: string; interrupt: boolean }
  /** Hand the call to `target`. A web call ends with reason `transfer` and the client is told the target. */
  | { action: 'transfer'; target: string }
  /** End the call: at once, or after the line being spoken. */
  | { action: 'end'; immediately: boolean }

export interface CallControlBus {
  publish(callId: string, message: CallControl): Promise<number>
  /** Receives the call's control messages until the returned function is called. */
  subscribe(callId: string, handler: (message: CallControl) => void): () => void
}

export class InProcessCallControlBus implements CallControlBus {
  private readonly handlers = new Map<string, Set<(m: CallControl) => void>>()

  constructor(private readonly onHandlerError: (err: unknown, callId: string) => void = () => {}) {}

  async publish(callId: string, message: CallControl): Promise<number> {
    const set = this.handlers.get(callId)
    if (!set) return 0
    let received = 0
    for (const h of [...set]) {
      try {
        h(message)
        received++
      } catch (err) {
        // A worker that threw did not apply the message: it is not counted as a receiver.
        this.onHandlerError(err, callId)
      }
    }
    return received
  }

  subscribe(callId: string, handler: (message: CallControl) => void): () => void {
    let set = this.handlers.get(callId)
    if (!set) this.handlers.set(callId, (set = new Set()))
    set.add(handler)
    return () => {
      set.delete(handler)
      if (set.size === 0 && this.handlers.get(callId) === set) this.handlers.delete(callId)
    }
  }
}
