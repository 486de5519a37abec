// Shared by the analysis tests (not a test file: tap includes only *.test.ts).
import type { Test } from 'tap'
import type { SessionAnalysisT } from '../../../api/analysis/index.js'
import { ManualClock, type DomainEvent, type ResolveHost } from '../../../core/index.js'
import { type OpenAiStandIn, startOpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { startTestApp, type Reply, type RequestOptions, type TestApp } from '../../helpers/app.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

export const KEY = 'sk-analysis-test-key'
export const W = '/api/v1/workflows'

/** Asks the name, then ends: a text session with agent and caller lines, no LLM needed to run it. */
export const BOOKING_GRAPH = {
  variables: [{ name: 'name', type: 'string' }],
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hello! Who is calling?' } } },
    { id: 'ask', type: 'collect', data: { variable: 'name', value_type: 'text', prompt: 'May I have your name?' } },
    { id: 'bye', type: 'end', data: { message: 'Thanks, you are booked for Monday.', disposition: 'booked' } },
  ],
  edges: [
    { id: 'a', source: 'start', target: 'ask' },
    { id: 'b', source: 'ask', target: 'bye' },
  ],
}

export const DATA_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, day: { type: 'string', enum: ['Monday', 'Tuesday'] } },
  required: ['name', 'day'],
  additionalProperties: false,
}

export const ANALYSIS = {
  summary: { enabled: true },
  success_evaluation: { criteria: 'The caller booked an appointment.', rubric: 'pass_fail' },
  structured_data: { schema: DATA_SCHEMA },
}

/** An answer to ANALYSIS that passes its checks. */
export const GOOD_ANSWER = {
  summary: 'Ayşe called and was booked for Monday.',
  success_evaluation: { success: true, reason: 'An appointment was booked.' },
  structured_data: { name: 'Ayşe', day: 'Monday' },
}

export interface Scene {
  a: TestApp
  llm: OpenAiStandIn
  clock: ManualClock
  owner: Actor
  events: DomainEvent[]
  send(method: string, path: string, o?: RequestOptions): Promise<Reply>
}

/** The app with the OpenAI stand-in as the platform's LLM, on a manual clock; retries wait `retryBaseMs` of it. */
export async function scene(t: Test, env: Record<string, string> = {}, resolve?: ResolveHost): Promise<Scene> {
  const llm = await startOpenAiStandIn({ apiKey: KEY })
  t.teardown(() => llm.close())
  const clock = new ManualClock(Date.parse('2026-11-27T09:00:00Z'))
  const a = await startTestApp({
    clock,
    ...(resolve && { resolve }),
    env: { OZAN_OPENAI_API_KEY: KEY, OZAN_OPENAI_BASE_URL: llm.url, OZAN_ANALYSIS_RETRY_BASE_MS: '1000', OZAN_ANALYSIS_MAX_ATTEMPTS: '3', ...env },
  })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const events: DomainEvent[] = []
  t.teardown(a.services.bus.subscribe((e) => events.push(e)))
  const send = (method: string, path: string, o: RequestOptions = {}) => a.request(method, path, { token: owner.token, ...o })
  return { a, llm, clock, owner, events, send }
}

/** A published agent of BOOKING_GRAPH with `analysis` in its config (null: no analysis block). */
export async function agent(s: Scene, analysis: unknown = ANALYSIS, by: Actor = s.owner): Promise<string> {
  const config = analysis === null ? {} : { analysis }
  const body = { name: 'Booking', definition: BOOKING_GRAPH, config }
  const id = expectStatus(await s.a.request('POST', W, { token: by.token, body }), 201, 'create agent').id as string
  expectStatus(await s.a.request('POST', `${W}/${id}/publish`, { token: by.token }), 200, 'publish')
  return id
}

/** Runs one text session of the agent to its end; returns the session id. */
export async function finishedSession(s: Scene, workflowId: string, by: Actor = s.owner): Promise<string> {
  const opened = expectStatus(await s.a.request('POST', `${W}/${workflowId}/sessions`, { token: by.token }), 201, 'start')
  const sid = opened.session_id as string
  const r = expectStatus(await s.a.request('POST', `${W}/${workflowId}/sessions/${sid}/messages`, { token: by.token, body: { text: 'Ayşe' } }), 200, 'answer')
  if (!r.ended) throw new Error(`the session did not end: ${JSON.stringify(r)}`)
  return sid
}

/** The session detail's analysis field. */
export async function analysisOf(s: Scene, workflowId: string, sid: string, by: Actor = s.owner): Promise<SessionAnalysisT> {
  return expectStatus(await s.a.request('GET', `${W}/${workflowId}/sessions/${sid}`, { token: by.token }), 200, 'session detail').analysis
}

/**
 * Works the queue until the session's analysis is in a final state: each round lets in-flight jobs
 * settle, then moves the manual clock past any backoff and wakes the worker.
 */
export async function settle(s: Scene, workflowId: string, sid: string, rounds = 20): Promise<SessionAnalysisT> {
  for (let i = 0; i < rounds; i++) {
    await s.a.services.analysis.settled()
    const analysis = await analysisOf(s, workflowId, sid)
    if (['completed', 'failed', 'skipped', 'not_requested'].includes(analysis.status)) return analysis
    // Past any backoff of these tests (retry base 1 s), well within an access token's life.
    s.clock.advance(60_000)
    s.a.services.analysis.wake()
    await new Promise((r) => setTimeout(r, 5))
  }
  throw new Error('the analysis did not finish')
}

export const analysisEvents = (s: Scene) => s.events.filter((e) => e.type === 'session.analysis.completed')
