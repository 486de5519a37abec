// Shared by the session tests (not a test file: tap includes only *.test.ts).
import type { Test } from 'tap'
import { ManualClock } from '../../../core/index.js'
import type { DomainEvent } from '../../../core/index.js'
import type { LlmClient } from '../../../engine/graph-runtime/index.js'
import { startTestApp, type Reply, type RequestOptions, type TestApp } from '../../helpers/app.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

export const W = '/api/v1/workflows'
export const T0 = Date.parse('2025-06-02T09:00:00Z')

export interface Scene {
  a: TestApp
  clock: ManualClock
  owner: Actor
  send(method: string, path: string, o?: RequestOptions): Promise<Reply>
  /** Every bus event published since setup, in order. */
  events: DomainEvent[]
}

/** A running app on a manual clock, one owner, and a record of the bus; closed when the test ends. */
export async function setup(t: Test): Promise<Scene> {
  const clock = new ManualClock(T0)
  const a = await startTestApp({ clock })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const events: DomainEvent[] = []
  t.teardown(a.services.bus.subscribe((e) => events.push(e)))
  const send = (method: string, path: string, o: RequestOptions = {}) => a.request(method, path, { token: owner.token, ...o })
  return { a, clock, owner, send, events }
}

/**
 * Gives the app's session service an LLM. startTestApp has no option for it and test/helpers/app.ts
 * is shared, so this sets the service's dependency field `deps.llmFor` directly (undefined: none).
 */
export function useLlm(a: TestApp, llm: LlmClient | undefined): void {
  const deps = (a.services.sessions as unknown as { deps: { llmFor?: (organizationId: string) => LlmClient | undefined } }).deps
  deps.llmFor = () => llm
}

/** Shortens the session service's turn deadline (SessionDeps.turnTimeoutMs), the same way useLlm wires an LLM. */
export function useTurnTimeout(a: TestApp, ms: number): void {
  const deps = (a.services.sessions as unknown as { deps: { turnTimeoutMs?: number } }).deps
  deps.turnTimeoutMs = ms
}

/** Creates an agent (from a template or a definition) and publishes it unless told not to. */
export async function agent(
  s: Scene,
  o: { template?: string; definition?: unknown; publish?: boolean; environment?: string; actor?: Actor } = {},
): Promise<string> {
  const by = o.actor ?? s.owner
  const headers = o.environment ? { 'x-environment-id': o.environment } : undefined
  const body = { name: 'Session agent', ...(o.template && { template_id: o.template }), ...(o.definition !== undefined && { definition: o.definition }) }
  const id = expectStatus(await s.a.request('POST', W, { token: by.token, headers, body }), 201, 'create agent').id as string
  if (o.publish !== false) expectStatus(await s.a.request('POST', `${W}/${id}/publish`, { token: by.token, headers }), 200, 'publish')
  return id
}

/** A graph that says one line and ends: enough to tell versions apart. */
export const lineGraph = (line: string) => ({
  variables: [],
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'line', type: 'say', data: { text: line } },
    { id: 'done', type: 'end', data: { disposition: 'said' } },
  ],
  edges: [
    { id: 'e_line', source: 'start', target: 'line' },
    { id: 'e_done', source: 'line', target: 'done' },
  ],
})

/** A conversation node that may call calendar.create_booking (no runner is configured) and leave by intent. */
export const CONVERSATION_GRAPH = {
  variables: [],
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hi, how can I help?' } } },
    { id: 'chat', type: 'conversation', data: { prompt: 'You book appointments.', tools: [{ integration: 'calendar', action: 'create_booking' }] } },
    { id: 'bye', type: 'end', data: { message: 'Goodbye!', disposition: 'completed' } },
  ],
  edges: [
    { id: 'e_start', source: 'start', target: 'chat' },
    { id: 'e_done', source: 'chat', target: 'bye', condition: { kind: 'intent', description: 'The caller is done' } },
  ],
}

export const sessionsOf = (workflowId: string) => `${W}/${workflowId}/sessions`
export const sessionPath = (workflowId: string, sessionId: string) => `${W}/${workflowId}/sessions/${sessionId}`

/** Starts a session and returns its SessionStartResponse. */
export async function start(s: Scene, workflowId: string, body?: unknown): Promise<Record<string, any>> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  return expectStatus(await s.send('POST', sessionsOf(workflowId), { body }), 201, 'start session')
}

export async function say(s: Scene, workflowId: string, sessionId: string, text: string): Promise<Record<string, any>> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  return expectStatus(await s.send('POST', `${sessionPath(workflowId, sessionId)}/messages`, { body: { text } }), 200, `message "${text}"`)
}

export const errorOf = (r: Reply) => ({ status: r.status, code: r.body?.error?.code as string | undefined })

// A conversation agent: the reply comes from whichever LLM the organization is wired to.
export const CHAT_AGENT = {
  name: 'Chat',
  definition: {
    nodes: [
      { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hi, ask me anything.' } } },
      { id: 'chat', type: 'conversation', data: { prompt: 'You are a helpful assistant.' } },
      { id: 'bye', type: 'end' },
    ],
    edges: [
      { id: 'a', source: 'start', target: 'chat' },
      { id: 'b', source: 'chat', target: 'bye', condition: { kind: 'intent', description: 'The caller says goodbye' } },
    ],
  },
}
