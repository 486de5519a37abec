import type { Definition } from './definition.js'
import { cloneJson } from './json-bounds.js'

/** A session's runtime state; plain data, stored between turns. */
export interface RuntimeState {
  /** The node waiting for the caller (collect or conversation); null before start and after end. */
  nodeId: string | null
  variables: Record<string, unknown>
  /** Failed answers at the current collect node. */
  attempts: number
  history: { role: 'user' | 'assistant'; text: string }[]
  started: boolean
  ended: boolean
  disposition: string | null
  /**
   * The transfer node the session ended at (disposition "transferred"), until the transfer is
   * known to have connected: a failed one resumes there (GraphRuntime.transferFailed). Absent in
   * states stored before it existed.
   */
  transferFrom?: string | null
}

export class RuntimeError extends Error {
  constructor(
    readonly code: 'session_ended' | 'not_started' | 'already_started',
    message: string,
  ) {
    super(message)
    this.name = 'RuntimeError'
  }
}

export function initialState(def: Definition, seed: Record<string, unknown> = {}): RuntimeState {
  const variables: Record<string, unknown> = {}
  // defineProperty: a variable named __proto__ is a value like any other, not the object's prototype.
  const set = (name: string, value: unknown) =>
    Object.defineProperty(variables, name, { value: cloneJson(value), writable: true, enumerable: true, configurable: true })
  for (const v of def.variables) if (v.default !== undefined) set(v.name, v.default)
  for (const v of def.variables) if (Object.hasOwn(seed, v.name) && seed[v.name] !== undefined) set(v.name, seed[v.name])
  return { nodeId: null, variables, attempts: 0, history: [], started: false, ended: false, disposition: null }
}

/**
 * The abort reason of a turn to forget entirely: aborting with it restores the state without
 * keeping the caller's words (a preemptive reply whose words the caller went on to extend).
 */
export function discardTurn(): DOMException {
  return new DOMException('The turn was discarded', 'TurnDiscarded')
}

export const isDiscard = (reason: unknown): boolean => reason instanceof DOMException && reason.name === 'TurnDiscarded'
