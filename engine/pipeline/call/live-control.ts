/**
 * What the agent does after its current reply, besides answering the caller: lines live control
 * asked it to say, an `end` waiting for it to be quiet, and the workflow's own actions on the line
 * — keys pressed by dtmf nodes and a transfer node's transfer. A reply keeps its workflow actions
 * (replies.ts) and they are carried out once it is over, heard in full or cut, so keys and
 * transfers follow the words the workflow put before them and a barge-in does not lose them (the
 * workflow has moved on). Pure state; the controller asks `next()` whenever the agent is free.
 */
import type { Reply } from './replies.js'

export type NextUp =
  | { kind: 'line'; id: string; text: string }
  /** The workflow's transfer failed: it goes on by its transfer node's failure edge. */
  | { kind: 'resume_workflow'; id: string }
  | { kind: 'end' }

export class LiveControl {
  private readonly lines: string[] = []
  private count = 0
  private endWhenQuiet = false
  /** A workflow transfer is out: the workflow has ended, unless the transfer fails (then `resume`). */
  private workflowTransfer: 'none' | 'waiting' | 'resume' = 'none'

  say(text: string): void {
    this.lines.push(text)
  }

  get hasLines(): boolean {
    return this.lines.length > 0
  }

  /** Control `end` (not immediately): the call ends once the agent has said what it has to. */
  endWhenDone(): void {
    this.endWhenQuiet = true
  }

  /** The workflow's transfer went out; the transport reports how it went. */
  workflowTransferOut(): void {
    this.workflowTransfer = 'waiting'
  }

  /** A transfer failed: if it was the workflow's, the workflow goes on once the failure is said. */
  transferFailed(): void {
    if (this.workflowTransfer === 'waiting') this.workflowTransfer = 'resume'
  }

  /** While the workflow waits on its transfer it has ended: a caller's turn has nothing to answer it. */
  get holdsTurns(): boolean {
    return this.workflowTransfer !== 'none'
  }

  /** What the free agent does next, or null: listen. */
  next(): NextUp | null {
    const text = this.lines.shift()
    if (text !== undefined) return { kind: 'line', id: `say-${++this.count}`, text }
    if (this.endWhenQuiet) return { kind: 'end' }
    if (this.workflowTransfer !== 'resume') return null
    this.workflowTransfer = 'none'
    return { kind: 'resume_workflow', id: `transfer-failed-${++this.count}` }
  }
}

/** Notes a workflow step on its reply when it is an action on the line. */
export function noteWorkflowAction(r: Reply, step: string, data: Record<string, unknown>): void {
  if (step === 'agent_dtmf' && typeof data.digits === 'string') r.digits += data.digits
  else if (step === 'transfer' && typeof data.target === 'string') r.transferTo = data.target
}

/** Takes the reply's workflow actions (once): the keys to send now, and the transfer to make. */
export function takeWorkflowActions(r: Reply): { digits: string; transferTo: string | null } {
  const out = { digits: r.digits, transferTo: r.transferTo }
  r.digits = ''
  r.transferTo = null
  return out
}
