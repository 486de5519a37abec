import t, { type Test } from 'tap'
import type { ManualClock } from '../../../core/index.js'
import { startTestApp } from '../../helpers/app.js'
import { newOwner } from '../../helpers/tenancy-fixtures.js'

// Spec: "PUT credentials stores or replaces the organization's credentials for a provider.
// Secrets are stored protected and returned masked only."

const CREDENTIALS = '/api/v1/credentials'
const LONG_KEY = 'sk-proj-9f8e7d6c5b4a39281706abcd'

// Stand-in providers listen on loopback, which the operator must allow (the outbound guard).
async function setup(t: Test) {
  const a = await startTestApp({ env: { OZAN_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8' } })
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const put = (body: unknown, token = owner.token) => a.request('PUT', CREDENTIALS, { token, body })
  const list = async (token = owner.token) => {
    const res = await a.request('GET', CREDENTIALS, { token })
    t.equal(res.status, 200, 'GET /credentials')
    return res.body as Record<string, any>[] // eslint-disable-line @typescript-eslint/no-explicit-any
  }
  return { a, owner, put, list }
}

t.test('PUT stores a credential and answers it masked; GET lists it the same way', async (t) => {
  const { a, owner, put, list } = await setup(t)
  const res = await put({ provider: 'openai', fields: { api_key: LONG_KEY, base_url: 'http://localhost:11434/v1', organization: 'org-acme' } })
  t.equal(res.status, 200, res.text)
  t.match(res.body, {
    provider: 'openai',
    fields: { api_key: '••••abcd', base_url: 'http://localhost:11434/v1', organization: 'org-acme' },
    secret_fields: ['api_key'],
    readable: true,
  })
  t.same(Object.keys(res.body.fields), ['api_key', 'base_url', 'organization'], 'the fields that are set, in catalog order')
  t.equal(res.body.created_at, new Date(a.clock.now()).toISOString())
  t.equal(res.body.updated_at, res.body.created_at)
  t.notOk(res.text.includes(LONG_KEY.slice(0, -4)), 'no more of the secret than its last 4 characters')

  const listed = await list()
  t.same(listed, [res.body], 'the list shows exactly what PUT answered')
  t.same(a.services.credentials.reveal(owner.organizationId, 'openai'), { api_key: LONG_KEY, base_url: 'http://localhost:11434/v1', organization: 'org-acme' })
})

t.test('secrets shorter than 12 characters are masked whole; plain fields are shown as they are', async (t) => {
  const { put } = await setup(t)
  const cases: [string, string][] = [
    ['a', '••••••••'],
    ['short-key-1', '••••••••'], // 11 characters
    ['twelve-chars', '••••hars'], // 12 characters
    ['  padded-secret-WXYZ  ', '••••WXYZ'], // trimmed before it is stored
  ]
  for (const [secret, shown] of cases) {
    const res = await put({ provider: 'deepgram', fields: { api_key: secret } })
    t.equal(res.status, 200, res.text)
    t.same(res.body.fields, { api_key: shown }, JSON.stringify(secret))
  }
  const slack = await put({ provider: 'slack', fields: { bot_token: 'xoxb-1234567890-abcdefghij' } })
  t.same(slack.body.fields, { bot_token: '••••ghij' })
  t.same(slack.body.secret_fields, ['bot_token'])
  const cal = await put({ provider: 'calcom', fields: { api_key: 'cal_live_0123456789abcdef', base_url: 'https://cal.example.com/api' } })
  t.same(cal.body.fields, { api_key: '••••cdef', base_url: 'https://cal.example.com/api' })
})

t.test('PUT replaces the whole credential in one row; created_at stays, updated_at moves', async (t) => {
  const { a, owner, put, list } = await setup(t)
  const first = await put({ provider: 'openai', fields: { api_key: LONG_KEY, base_url: 'https://llm.example.com/v1' } })
  ;(a.clock as ManualClock).advance(60_000)
  const second = await put({ provider: 'openai', fields: { api_key: 'sk-second-key-000000wxyz' } })
  t.equal(second.status, 200)
  t.same(second.body.fields, { api_key: '••••wxyz' }, 'base_url left out is removed')
  t.equal(second.body.created_at, first.body.created_at)
  t.equal(Date.parse(second.body.updated_at) - Date.parse(first.body.updated_at), 60_000)
  t.same(await list(), [second.body])
  const rows = a.db.prepare('SELECT count(*) AS n FROM credentials WHERE organization_id = ?').get(owner.organizationId) as { n: number }
  t.equal(rows.n, 1, 'one row per organization and provider')
  t.same(a.services.credentials.reveal(owner.organizationId, 'openai'), { api_key: 'sk-second-key-000000wxyz' })

  await put({ provider: 'hubspot', fields: { access_token: 'pat-eu1-00000000-1111-2222' } })
  t.same(
    (await list()).map((c) => c.provider),
    ['hubspot', 'openai'],
    'one entry per provider, by provider',
  )
  const events = a.db.prepare("SELECT metadata FROM audit_events WHERE action = 'credential.upserted' ORDER BY id").all() as { metadata: string }[]
  t.same(
    events.map((e) => JSON.parse(e.metadata)),
    [
      { fields: ['api_key', 'base_url'], replaced: false },
      { fields: ['api_key'], replaced: true },
      { fields: ['access_token'], replaced: false },
    ],
    'the audit trail names the fields set, never their values',
  )
})

t.test('DELETE removes the credential (204); an absent one is 404', async (t) => {
  const { a, owner, put, list } = await setup(t)
  t.equal((await put({ provider: 'slack', fields: { bot_token: 'xoxb-abcdefghijklmnop' } })).status, 200)
  const del = await a.request('DELETE', `${CREDENTIALS}/slack`, { token: owner.token })
  t.equal(del.status, 204)
  t.equal(del.text, '')
  t.same(await list(), [])
  t.equal(a.services.credentials.reveal(owner.organizationId, 'slack'), null)
  for (const provider of ['slack', 'openai', 'not-a-provider']) {
    const again = await a.request('DELETE', `${CREDENTIALS}/${provider}`, { token: owner.token })
    t.equal(again.status, 404, provider)
    t.equal(again.body.error.code, 'not_found')
  }
  const bad = await a.request('DELETE', `${CREDENTIALS}/Not%20A%20Key`, { token: owner.token })
  t.equal(bad.status, 422)
  t.same(bad.body.detail[0].loc, ['path', 'provider'])
})

t.test('invalid bodies are 422 with the location of each problem, and never echo a secret', async (t) => {
  const { put, list } = await setup(t)
  const secret = 'sk-should-never-come-back-0123456789'
  const cases: [string, unknown, (string | number)[][], string?][] = [
    ['unknown provider', { provider: 'acme', fields: { api_key: secret } }, [['body', 'provider']]],
    ['missing provider', { fields: { api_key: secret } }, [['body', 'provider']]],
    ['missing required field', { provider: 'openai', fields: { base_url: 'https://x.example.com' } }, [['body', 'fields', 'api_key']], 'missing'],
    [
      'required field of another provider',
      { provider: 'slack', fields: { api_key: secret } },
      [
        ['body', 'fields', 'bot_token'],
        ['body', 'fields', 'api_key'],
      ],
      'missing',
    ],
    ['unknown field', { provider: 'openai', fields: { api_key: secret, region: secret } }, [['body', 'fields', 'region']], 'extra_forbidden'],
    ['blank secret', { provider: 'deepgram', fields: { api_key: '   ' } }, [['body', 'fields', 'api_key']], 'string_too_short'],
    ['over 4 KiB', { provider: 'deepgram', fields: { api_key: 'k'.repeat(4097) } }, [['body', 'fields', 'api_key']], 'string_too_long'],
    ['header injection', { provider: 'deepgram', fields: { api_key: `${secret}\r\nX-Evil: 1` } }, [['body', 'fields', 'api_key']]],
    ['non-string value', { provider: 'hubspot', fields: { access_token: 12345 } }, [['body', 'fields', 'access_token']], 'string_type'],
    ['fields missing', { provider: 'hubspot' }, [['body', 'fields']], 'missing'],
  ]
  for (const [label, body, locs, type] of cases) {
    const res = await put(body)
    t.equal(res.status, 422, label)
    t.same(
      res.body.detail.map((d: { loc: unknown }) => d.loc),
      locs,
      `${label}: loc`,
    )
    if (type) t.equal(res.body.detail[0].type, type, `${label}: type`)
    t.notOk(res.text.includes(secret), `${label}: the secret is not echoed`)
  }
  t.equal((await put({ provider: 'deepgram', fields: { api_key: 'k'.repeat(4096) } })).status, 200, 'exactly 4096 characters is accepted')
  t.same(
    (await list()).map((c) => c.provider),
    ['deepgram'],
    'nothing else was stored',
  )
})

t.test("a provider's base_url is http(s) and must pass the outbound guard; an integration's is https, or http to loopback", async (t) => {
  const { put } = await setup(t)
  // The operator allows 127.0.0.0/8 here; api.openai.com does not resolve offline (accepted, checked on connect).
  const accepted = ['https://api.openai.com/v1', 'http://localhost:11434/v1', 'http://127.0.0.1:8000/v1', 'https://127.0.0.1:8443/v1']
  const refused: [string, string][] = [
    ['http://api.openai.com/v1', 'insecure_url'],
    ['http://localhost.evil.example/v1', 'insecure_url'],
    ['http://10.0.0.5/v1', 'destination_refused'],
    ['https://10.0.0.5:8443/v1', 'destination_refused'],
    ['http://[::1]:8080', 'destination_refused'],
    ['ftp://files.example.com', 'value_error'],
    ['not a url', 'value_error'],
    ['', 'value_error'],
    ['https://user:pass@api.example.com/v1', 'value_error'],
    ['javascript:alert(1)', 'value_error'],
    ['https://api.example.com/v1#frag', 'value_error'],
  ]
  for (const base_url of accepted) t.equal((await put({ provider: 'openai', fields: { api_key: LONG_KEY, base_url } })).status, 200, base_url)
  for (const [base_url, type] of refused) {
    const res = await put({ provider: 'openai', fields: { api_key: LONG_KEY, base_url } })
    t.equal(res.status, 422, JSON.stringify(base_url))
    t.same(res.body.detail?.[0]?.loc, ['body', 'fields', 'base_url'])
    if (type !== 'value_error') t.equal(res.body.detail?.[0]?.type, type, `${JSON.stringify(base_url)}: ${type}`)
  }
  const calcom = (base_url: string) => put({ provider: 'calcom', fields: { api_key: 'cal_live_0123456789abcdef', base_url } })
  for (const base_url of ['https://cal.example.com/api', 'http://[::1]:8080', 'http://127.0.0.1:3000'])
    t.equal((await calcom(base_url)).status, 200, `calcom ${base_url}`)
  for (const base_url of ['http://cal.example.com/api', 'http://10.0.0.5/api']) t.equal((await calcom(base_url)).status, 422, `calcom ${base_url}`)
})
