// When the live listing cannot be had, the static catalog is answered (200, never a 5xx or a
// hang), and the response says so: source 'static' and why (fallback_reason).
import net, { type AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { ManualClock, type ResolveHost } from '../../../core/index.js'
import { expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { deepgramStandIn, httpOrigin, ids, openAiStandIn, providersApp, resources, storeCredential } from './fixtures.js'

t.test("an error status from the platform's server falls back to the catalog, saying why", async (t) => {
  const s = await openAiStandIn(t, 'sk-platform-8888', ['live-model'])
  const a = await providersApp(t, { env: { OZAN_OPENAI_API_KEY: 'sk-platform-8888', OZAN_OPENAI_BASE_URL: s.url, OZAN_PROVIDER_RESOURCES_TTL_S: '0' } })
  const owner = await newOwner(a)

  s.failModelListing({ kind: 'status', status: 500 })
  const failed = expectStatus(await resources(a, owner, 'llm', 'openai'), 200, 'upstream 500')
  t.match(failed, { source: 'static', fallback_reason: 'upstream_error', credential: 'platform', fetched_at: null })
  t.same(ids(failed.models), ['gpt-4o-mini'], "the catalog's default, not the live list")
  t.equal(s.modelListings.at(-1)!.status, 500)
})

t.test('each failure kind, on a fresh credential (a failed listing is remembered briefly)', async (t) => {
  const s = await openAiStandIn(t, 'sk-org-9999', ['live-model'])
  const a = await providersApp(t, { env: { OZAN_PROVIDER_LISTING_TIMEOUT_MS: '300' } })
  const cases = [
    { failure: { kind: 'status', status: 503 }, key: 'sk-org-9999', reason: 'upstream_error' },
    { failure: { kind: 'malformed' }, key: 'sk-org-9999', reason: 'upstream_error' },
    { failure: null, key: 'sk-wrong-key-0000', reason: 'credential_rejected' },
    { failure: { kind: 'hang' }, key: 'sk-org-9999', reason: 'timeout' },
  ] as const
  for (const c of cases) {
    const owner = await newOwner(a)
    await storeCredential(a, owner, 'openai', { api_key: c.key, base_url: s.url })
    if (c.failure) s.failModelListing(c.failure)
    const started = Date.now()
    const r = expectStatus(await resources(a, owner, 'stt', 'openai'), 200, c.reason)
    t.match(r, { source: 'static', fallback_reason: c.reason, credential: 'organization' }, `${c.failure?.kind ?? 'wrong key'} → ${c.reason}`)
    if (c.failure?.kind === 'hang') t.ok(Date.now() - started < 3000, 'the hang is cut at OZAN_PROVIDER_LISTING_TIMEOUT_MS')
  }
  t.equal(s.modelListings.length, cases.length, 'one listing per case')
  const logged = a.logs.filter((l) => l.includes('provider listing failed'))
  t.equal(logged.length, cases.length, 'each failure logged once')
  t.match(JSON.parse(logged.at(-1)!), { provider: 'openai', live_source: 'openai_models', reason: 'timeout' })
  t.notOk(
    a.logs.some((l) => l.includes('sk-org-9999') || l.includes('sk-wrong-key')),
    'no key in any log line',
  )
})

t.test('a failed listing is remembered for 10 s, then asked again', async (t) => {
  const dg = await deepgramStandIn(t, 'dg-key-1212')
  const clock = new ManualClock(Date.now())
  const a = await providersApp(t, { clock })
  const owner = await newOwner(a)
  await storeCredential(a, owner, 'deepgram', { api_key: 'dg-key-1212', base_url: httpOrigin(dg) })
  dg.failModelListing({ kind: 'status', status: 502 })
  t.match(expectStatus(await resources(a, owner, 'stt', 'deepgram'), 200, 'failing'), { source: 'static', fallback_reason: 'upstream_error' })
  t.match(expectStatus(await resources(a, owner, 'stt', 'deepgram'), 200, 'remembered'), { source: 'static', fallback_reason: 'upstream_error' })
  t.equal(dg.modelListings.length, 1, 'the provider that is down is not asked on every request')
  clock.advance(10_001)
  t.match(expectStatus(await resources(a, owner, 'stt', 'deepgram'), 200, 'recovered'), { source: 'live' })
  t.equal(dg.modelListings.length, 2)
})

/** DNS from a table a test may change between lookups (rebinding). */
function dns(table: Record<string, string[]>): ResolveHost {
  return async (host) => {
    const answers = table[host]
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return answers.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }))
  }
}

async function connectionCounter(t: Test): Promise<{ port: number; connections: () => number }> {
  let n = 0
  const server = net.createServer((sock) => {
    n++
    sock.destroy()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return { port: (server.address() as AddressInfo).port, connections: () => n }
}

t.test("an organization's base URL rebound to loopback is refused by the outbound guard at connect time: static, nothing sent", async (t) => {
  const table: Record<string, string[]> = { 'models.rebind.test': ['93.184.216.34'], 'dg.rebind.test': ['93.184.216.34'] }
  // No allowed ranges: loopback is refused, as the platform's guard refuses it everywhere.
  const a = await providersApp(t, { resolve: dns(table), env: { OZAN_ALLOW_PRIVATE_CIDRS: '' } })
  const target = await connectionCounter(t)
  const owner = await newOwner(a)
  await storeCredential(a, owner, 'openai', { api_key: 'sk-guarded-0123456789', base_url: `https://models.rebind.test:${target.port}/v1` })
  await storeCredential(a, owner, 'deepgram', { api_key: 'dg-guarded-0123456789', base_url: `https://dg.rebind.test:${target.port}` })
  table['models.rebind.test'] = ['127.0.0.1']
  table['dg.rebind.test'] = ['10.1.2.3']

  const openai = expectStatus(await resources(a, owner, 'llm', 'openai'), 200, 'openai')
  t.match(openai, { source: 'static', fallback_reason: 'destination_refused', credential: 'organization' })
  const deepgram = expectStatus(await resources(a, owner, 'tts', 'deepgram'), 200, 'deepgram')
  t.match(deepgram, { source: 'static', fallback_reason: 'destination_refused', credential: 'organization' })
  t.equal(target.connections(), 0, 'not one connection reached the loopback listener')
  t.notMatch(JSON.stringify(openai) + JSON.stringify(deepgram), /127\.0\.0\.1|10\.1\.2\.3/, 'the refused address is not told to the caller')
})
