import t from 'tap'
import { systemClock } from '../../../core/index.js'
import { startTestApp } from '../../helpers/app.js'
import { createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { CALL_GRAPH, VOICE_CONFIG, callScene } from '../../api/calls/fixtures.js'
import { reportOf, requirePython, runPython } from './python.js'

// The Python client (sdk/python, package `ozan`) against a real server over HTTP: the contract
// script (contract.py) drives the API through the library and reports what it got; each check
// here compares that with the server's own view.

const SCRIPT = new URL('./contract.py', import.meta.url).pathname
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

if (requirePython(t)) {
  t.test('an agent created, published, run as text; a web-call token; calls paged; 404 and 422 as typed errors', async (t) => {
    const s = await callScene(t)
    await s.storeDeepgram()
    const key = await createKey(s.a, s.owner)
    const input = JSON.stringify({ mode: 'contract', url: s.a.url, api_key: key.key, graph: CALL_GRAPH, config: VOICE_CONFIG })
    const r = reportOf(await runPython([SCRIPT], input))

    const agent = expectStatus(await s.a.request('GET', `/api/v1/workflows/${r.agent.id}`, { token: s.owner.token }), 200, 'get agent')
    t.equal(agent.name, 'Python contract agent', 'the agent exists on the server')
    t.equal(r.published, 1, 'published as version 1')
    t.match(r.text_run, { status: /^(active|completed)$/, reply: 'Thank you. Anything else?' }, 'the text run took "Ada" as the name')
    t.match(r.text_run.messages, ['Hello! Welcome to the demo line.', 'What is your name?'], 'and spoke the opening first')
    t.match(r.web_token, { token: /\S{20,}/, ws_url: new RegExp(`^ws://127\\.0\\.0\\.1:${s.engine.port}/`) }, 'a web-call token for the engine')
    t.ok(Date.parse(r.web_token.expires_at) > Date.now(), 'the token has not expired')

    const server = expectStatus(await s.a.request('GET', '/api/v1/calls?channel=chat&limit=100', { token: s.owner.token }), 200, 'list calls')
    t.equal(r.calls.created.length, 5)
    t.same(
      r.calls.listed,
      server.items.map((c: { call_uuid: string }) => c.call_uuid),
      'every page, in the server order',
    )
    t.same([...r.calls.listed].sort(), [...r.calls.created].sort(), 'exactly the calls created')
    t.same(r.calls.page_sizes, [2, 2, 1], 'pages of page_size, and no request past the total')
    t.same(r.calls.offsets, [0, 2, 4])
    t.equal(r.calls.total, server.total)

    t.equal(r.workflows.total, 2, 'array lists: the total from X-Total-Count')
    t.equal(r.workflows.listed.length, 2, 'array lists: one row per page, both rows')
    t.ok(r.workflows.listed.includes(r.workflows.second) && r.workflows.listed.includes(r.agent.id))

    const env = r.environments
    t.equal(env.agent, 'dev', 'without X-Environment-Id: the default environment')
    t.equal(env.staged, 'staging', 'with_environment("staging") sends X-Environment-Id')
    t.same(env.staging_list, [env.staged_id], "staging's list holds only its agent")
    t.notOk(env.default_list.includes(env.staged_id), 'and the default list does not')
    t.match(r.not_found, { class: 'NotFoundError', status: 404, code: 'not_found', message: 'The resource was not found.', request_id: UUID })
    t.equal(r.not_found.request_id, r.not_found.header_request_id, 'the body request id is the X-Request-ID header')
    t.match(r.invalid, { class: 'UnprocessableEntityError', status: 422, code: 'validation_error', request_id: /\S/ })
    t.match(r.invalid.detail, [{ loc: ['body', 'name'], msg: /\S/ }], 'the 422 detail names the field')
    t.equal(r.retries, 0, 'nothing above was retried')
  })

  t.test('a 429 is retried after Retry-After; POST /calls only when asked; with retries off it is raised, typed', async (t) => {
    // The real clock so the bucket refills while the client waits: 2 requests, then one every 2 s.
    const env = { OZAN_RATE_LIMIT_KEY_BURST: '2', OZAN_RATE_LIMIT_KEY_PER_MIN: '30' }
    const a = await startTestApp({ env, clock: systemClock })
    t.teardown(() => a.close())
    const owner = await newOwner(a)
    const key = await createKey(a, owner)
    const input = JSON.stringify({ mode: 'rate-limit', url: a.url, api_key: key.key, graph: CALL_GRAPH, config: VOICE_CONFIG })
    const r = reportOf(await runPython([SCRIPT], input))

    const list = r.retried_list
    t.ok(list.sent >= 3, `the bucket ran out after its burst (${list.sent} requests)`)
    t.match(list.retries, [{ attempt: 1, code: 'rate_limited' }], 'one retry, for rate_limited, then success')
    t.equal(list.retries.length, 1)
    const asked = Number(list.retry_after[0])
    t.ok(asked === 1 || asked === 2, `the server asked for ${list.retry_after[0]} s`)
    t.ok(list.retries[0].delay >= asked, `waited at least Retry-After (${list.retries[0].delay} s)`)
    t.ok(list.elapsed >= asked, `the requests took at least that long (${list.elapsed} s)`)

    t.match(r.no_retry, { class: 'RateLimitError', status: 429, code: 'rate_limited', message: /Retry-After/, request_id: UUID })
    t.ok(r.no_retry.retry_after >= 1, 'with its Retry-After in seconds')
    t.match(r.calls_create, { class: 'RateLimitError', status: 429, code: 'rate_limited', retried: 0 }, 'POST /calls: raised, not retried')
    t.match(r.calls_create_opt_in, { status: 'active', retried: 1 }, 'retry=True: waited and created')
    t.ok(r.calls_create_opt_in.elapsed >= 1)
    const calls = expectStatus(await a.request('GET', '/api/v1/calls?channel=chat', { token: owner.token }), 200, 'list calls')
    t.equal(calls.total, 1, 'exactly one call was created: the refused one did not run')
  })
}
