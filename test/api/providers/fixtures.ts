import type { Test } from 'tap'
import { startDeepgramStandIn, startOpenAiStandIn, type DeepgramStandIn, type OpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { startTestApp, type Reply, type TestApp, type TestAppOptions } from '../../helpers/app.js'
import { expectStatus, type Actor } from '../../helpers/tenancy-fixtures.js'

export const PROVIDERS = '/api/v1/providers'
export const resourcesPath = (serviceType: string, key: string) => `${PROVIDERS}/${serviceType}/${key}/resources`

/** An app whose organizations may aim their provider base URLs at loopback stand-ins. */
export async function providersApp(t: Test, o: TestAppOptions = {}): Promise<TestApp> {
  const a = await startTestApp({ ...o, env: { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8', ...o.env } })
  t.teardown(() => a.close())
  return a
}

export async function openAiStandIn(t: Test, apiKey: string, models?: string[]): Promise<OpenAiStandIn> {
  const s = await startOpenAiStandIn({ apiKey, ...(models && { models }) })
  t.teardown(() => s.close())
  return s
}

export async function deepgramStandIn(t: Test, apiKey: string): Promise<DeepgramStandIn> {
  const s = await startDeepgramStandIn({ apiKey })
  t.teardown(() => s.close())
  return s
}

/** The Deepgram stand-in's HTTP origin (its `url` is the ws:// one the live API uses). */
export const httpOrigin = (s: DeepgramStandIn) => s.url.replace(/^ws/, 'http')

export async function storeCredential(a: TestApp, owner: Actor, provider: string, fields: Record<string, string>): Promise<void> {
  expectStatus(await a.request('PUT', '/api/v1/credentials', { token: owner.token, body: { provider, fields } }), 200, `store ${provider} credential`)
}

export async function resources(a: TestApp, owner: Actor, serviceType: string, key: string): Promise<Reply> {
  return a.request('GET', resourcesPath(serviceType, key), { token: owner.token })
}

export const ids = (list: { id: string }[]) => list.map((x) => x.id)
