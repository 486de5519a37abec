// Shared by the test-suite tests (not a test file: tap includes only *.test.ts).
import type { Test } from 'tap'
import type { z } from 'zod'
import type { TestRunDetail } from '../../../api/test-suites/index.js'
import { ManualClock } from '../../../core/index.js'
import { type OpenAiStandIn, startOpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { startTestApp, type Reply, type RequestOptions, type TestApp } from '../../helpers/app.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

export type RunDetail = z.output<typeof TestRunDetail>

export const KEY = 'sk-test-suites-key'
export const W = '/api/v1/workflows'
export const S = '/api/v1/test-suites'

/**
 * Asks the name, books through a tool (calcom.create_booking), then ends "booked"; a failed
 * booking ends "booking_failed". Deterministic: no LLM needed to run it.
 */
export const BOOKING_GRAPH = {
  variables: [
    { name: 'name', type: 'string' },
    { name: 'booking_id', type: 'string' },
  ],
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hello! Who is calling?' } } },
    { id: 'ask', type: 'collect', data: { variable: 'name', value_type: 'text', prompt: 'May I have your name?' } },
    {
      id: 'book',
      type: 'tool',
      data: { action: { integration: 'calcom', action: 'create_booking' }, input: { name: '{{name}}', day: 'Monday' }, output: { booking_id: 'uid' } },
    },
    { id: 'bye', type: 'end', data: { message: 'Thanks {{name}}, you are booked for Monday.', disposition: 'booked' } },
    { id: 'sorry', type: 'end', data: { message: 'Sorry, I could not book that.', disposition: 'booking_failed' } },
  ],
  edges: [
    { id: 'a', source: 'start', target: 'ask' },
    { id: 'b', source: 'ask', target: 'book' },
    { id: 'c', source: 'book', target: 'bye', condition: { kind: 'outcome', outcome: 'success' } },
    { id: 'd', source: 'book', target: 'sorry', condition: { kind: 'outcome', outcome: 'failure' } },
  ],
}

/** The booking tool answers a booking id. */
export const BOOKED = [{ integration: 'calcom', action: 'create_booking', output: { uid: 'bk_42' } }]

export interface Scene {
  a: TestApp
  llm: OpenAiStandIn
  owner: Actor
  send(method: string, path: string, o?: RequestOptions): Promise<Reply>
}

/** The app with the OpenAI stand-in as the platform's LLM. */
export async function scene(t: Test, env: Record<string, string> = {}): Promise<Scene> {
  const llm = await startOpenAiStandIn({ apiKey: KEY })
  t.teardown(() => llm.close())
  const a = await startTestApp({
    clock: new ManualClock(Date.parse('2026-11-27T09:00:00Z')),
    env: { OZAN_OPENAI_API_KEY: KEY, OZAN_OPENAI_BASE_URL: llm.url, ...env },
  })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const send = (method: string, path: string, o: RequestOptions = {}) => a.request(method, path, { token: owner.token, ...o })
  return { a, llm, owner, send }
}

/** A published agent of `graph` (BOOKING_GRAPH by default). */
export async function agent(a: TestApp, by: Actor, graph: unknown = BOOKING_GRAPH, config: unknown = {}): Promise<string> {
  const id = expectStatus(await a.request('POST', W, { token: by.token, body: { name: 'Booking', definition: graph, config } }), 201, 'create agent')
    .id as string
  expectStatus(await a.request('POST', `${W}/${id}/publish`, { token: by.token }), 200, 'publish')
  return id
}

/** A suite of the agent with these cases; returns its id. */
export async function suite(a: TestApp, by: Actor, workflowId: string, cases: unknown[], extra: Record<string, unknown> = {}): Promise<string> {
  const body = { name: 'Booking checks', workflow_uuid: workflowId, cases, ...extra }
  return expectStatus(await a.request('POST', S, { token: by.token, body }), 201, 'create suite').id as string
}

/** Starts a run and waits until the worker has nothing left to do; returns the run's detail. */
export async function runToEnd(a: TestApp, by: Actor, suiteId: string, body: unknown = {}): Promise<RunDetail> {
  const started = expectStatus(await a.request('POST', `${S}/${suiteId}/runs`, { token: by.token, body }), 202, 'start run')
  return finished(a, by, suiteId, started.id)
}

/** Waits until the run is passed or failed; returns its detail. */
export async function finished(a: TestApp, by: Actor, suiteId: string, runId: string): Promise<RunDetail> {
  for (let i = 0; i < 500; i++) {
    await a.services.testRunWorker.settled()
    const run = expectStatus<RunDetail>(await a.request('GET', `${S}/${suiteId}/runs/${runId}`, { token: by.token }), 200, 'get run')
    if (run.status === 'passed' || run.status === 'failed') return run
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error('the run did not finish')
}

/** A scripted case. */
export const scripted = (name: string, turns: string[], assertions: unknown[], extra: Record<string, unknown> = {}) => ({
  name,
  caller: { type: 'scripted', turns },
  tool_results: BOOKED,
  assertions,
  ...extra,
})
