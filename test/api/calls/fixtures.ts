import { startDeepgramStandIn, type DeepgramStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { createLogger, loadConfig } from '../../../core/index.js'
import { startEngine, type Engine } from '../../../api/index.js'
import { startTestApp, type Reply, type TestApp } from '../../helpers/app.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'
import { TestClient } from '../../engine/server/helpers.js'

export const W = '/api/v1/workflows'

/** Greets, asks a name, thanks by name, and ends: no LLM. */
export const CALL_GRAPH = {
  variables: [
    { name: 'name', type: 'string' },
    { name: 'other', type: 'string' },
  ],
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hello! Welcome to the demo line.' } } },
    { id: 'ask_name', type: 'collect', data: { variable: 'name', value_type: 'text', prompt: 'What is your name?', max_attempts: 3 } },
    { id: 'thanks', type: 'collect', data: { variable: 'other', value_type: 'text', prompt: 'Thank you. Anything else?', max_attempts: 3 } },
    { id: 'end', type: 'end', data: { message: 'Goodbye.', disposition: 'completed' } },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'ask_name' },
    { id: 'e2', source: 'ask_name', target: 'thanks', condition: { kind: 'outcome', outcome: 'collected' } },
    { id: 'e3', source: 'ask_name', target: 'end', condition: { kind: 'outcome', outcome: 'max_attempts' } },
    { id: 'e4', source: 'thanks', target: 'end', condition: { kind: 'outcome', outcome: 'collected' } },
    { id: 'e5', source: 'thanks', target: 'end', condition: { kind: 'outcome', outcome: 'max_attempts' } },
  ],
}
export const VOICE_CONFIG = { language: 'en-US', stt: { provider: 'deepgram' }, tts: { provider: 'espeak' } }

export interface CallScene {
  a: TestApp
  owner: Actor
  engine: Engine
  dg: DeepgramStandIn
  mint(workflowId: string, as?: { token?: string; apiKey?: string }, body?: Record<string, unknown>): Promise<Reply>
  connect(wsUrl: string): Promise<TestClient>
  /** A published agent (the demo say/collect graph, no LLM) with deepgram STT and espeak TTS. */
  agent(o?: { publish?: boolean; owner?: Actor }): Promise<string>
  storeDeepgram(owner?: Actor): Promise<void>
}

/** The real app and the real engine (ws transport, port 0), a Deepgram stand-in for STT. */
export async function callScene(t: { teardown(fn: () => unknown): void }, env: Record<string, string> = {}, socket: 'ws' | 'uws' = 'ws'): Promise<CallScene> {
  const dg = await startDeepgramStandIn({ apiKey: 'dg-key', finalLatencyMs: 100 })
  t.teardown(() => dg.close())
  const a = await startTestApp({ env: { OZAN_ENGINE_SOCKET: socket, OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8', ...env } })
  const engine = await startEngine({
    services: a.services,
    config: loadConfig({ OZAN_ENGINE_SOCKET: socket }),
    logger: createLogger('silent'),
    host: '127.0.0.1',
    port: 0,
  })
  // Engine first (live calls are recorded), then the app and its database.
  t.teardown(async () => {
    await engine.close()
    await a.close()
  })
  const owner = await newOwner(a)
  const clients: TestClient[] = []
  t.teardown(() => clients.forEach((c) => c.ws.terminate()))
  const storeDeepgram = async (as = owner) => {
    const body = { provider: 'deepgram', fields: { api_key: 'dg-key', base_url: dg.url.replace(/^ws/, 'http') } }
    expectStatus(await a.request('PUT', '/api/v1/credentials', { token: as.token, body }), 200, 'store deepgram credential')
  }
  return {
    a,
    owner,
    engine,
    dg,
    storeDeepgram,
    mint: (workflowId, as = { token: owner.token }, body = {}) =>
      a.request('POST', '/api/v1/calls/web-token', { ...as, body: { workflow_uuid: workflowId, ...body } }),
    async connect(wsUrl) {
      const c = TestClient.connect(wsUrl)
      clients.push(c)
      return c
    },
    async agent(o = {}) {
      const as = o.owner ?? owner
      const id = expectStatus(await a.request('POST', W, { token: as.token, body: { name: 'Web call agent' } }), 201, 'create agent').id as string
      expectStatus(await a.request('PUT', `${W}/${id}/definition`, { token: as.token, body: CALL_GRAPH }), 200, 'put definition')
      expectStatus(await a.request('PUT', `${W}/${id}/config`, { token: as.token, body: VOICE_CONFIG }), 200, 'put config')
      if (o.publish !== false) expectStatus(await a.request('POST', `${W}/${id}/publish`, { token: as.token }), 200, 'publish')
      return id
    },
  }
}
