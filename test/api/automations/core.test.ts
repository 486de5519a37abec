import t from 'tap'
import { checkFilter, checkMapping, passes, renderMapping } from '../../../api/automations/index.js'
import { failureOf, storedOutput, MAX_OUTPUT_BYTES } from '../../../api/automations/outcome.js'

const view = { event: 'session.completed', data: { status: 'completed', n: 3, transcript: [{ content: 'a refund please' }], vars: { list: [1, 2] } } }

t.test('filters: JSON Logic over { event, data } with its own truthiness; a throwing filter is false', async (t) => {
  t.equal(passes(null, view), true, 'no filter passes everything')
  t.equal(passes({ '==': [{ var: 'event' }, 'session.completed'] }, view), true)
  t.equal(passes({ '>': [{ var: 'data.n' }, 5] }, view), false)
  t.equal(passes({ some: [{ var: 'data.transcript' }, { in: ['refund', { var: 'content' }] }] }, view), true)
  t.equal(passes({ var: 'data.vars.missing' }, view), false)
  t.equal(passes({ merge: [] }, view), false, '[] is false in JSON Logic')
  t.equal(passes({ nope: [] }, view), false, 'an unknown operator throws inside json-logic: false')
})

t.test('filter checks: allow-list, reads inside the event, no iterator inside an iterator body', async (t) => {
  t.same(checkFilter({ '==': [{ var: 'data.status' }, 'completed'] }), [])
  t.same(
    checkFilter({ all: [{ map: [{ var: 'data.transcript' }, { var: 'content' }] }, { '!!': { var: '' } }] }),
    [],
    'an iterator over another iterator is linear',
  )
  t.match(checkFilter({ log: 1 }), [{ msg: /forbidden/ }])
  t.match(checkFilter({ '==': [{ var: 'status' }, 1] }), [{ msg: /"status" is not in the event/ }])
  t.match(checkFilter({ filter: [{ var: 'data.transcript' }, { reduce: [{ var: 'x' }, 1, 0] }] }), [{ path: ['filter', 1, 'reduce'], msg: /linear/ }])
  t.match(checkFilter([1]), [{ msg: /one JSON Logic operation/ }])
})

t.test('mappings render templates and copy $value paths, own properties only', async (t) => {
  const rendered = renderMapping(
    { a: 'Status {{data.status}} ({{data.n}})', b: { $value: 'data.vars' }, c: [{ $value: 'data.nothing' }, 7, true, null], d: '{{data.constructor}}' },
    view,
  )
  t.same(rendered, { ok: true, input: { a: 'Status completed (3)', b: { list: [1, 2] }, c: [null, 7, true, null], d: '' } })
  t.same(renderMapping({ x: { $value: 'data.__proto__' } }, view), { ok: true, input: { x: null } })
  const huge = renderMapping({ x: '{{#data.big}}{{data.s}}{{/data.big}}' }, { data: { big: Array.from({ length: 200 }, () => 1), s: 'y'.repeat(2000) } })
  t.match(huge, { ok: false, message: /characters|bytes/ }, 'over the render budget: an error, not a throw')
})

t.test('mapping checks follow the action input schema', async (t) => {
  t.same(checkMapping('slack', 'post_message', { channel: '#a', text: 'x' }), { input: [] })
  t.same(
    checkMapping('http', 'request', { url: 'https://example.com', body: { a: { $value: 'data.x' } } }),
    { input: [] },
    'method has a default: not required',
  )
  t.match(checkMapping('http', 'request', {}), { input: [{ path: ['url'], msg: 'Field required' }] })
  t.match(checkMapping('nope', 'x', {}), { integration: [{ msg: /no integration/ }] })
})

t.test('failures: the runner code decides whether waiting could help', async (t) => {
  const f = (error: string) => failureOf({ ok: false, error })
  t.match(f('timeout: The request took longer than 10000 ms.'), { code: 'timeout', retryable: true })
  t.match(f('ratelimited: Slack rate limit reached; retry after 7 seconds.'), { code: 'ratelimited', retryable: true })
  t.match(f('http_status: The server answered HTTP 503.'), { code: 'http_status', retryable: true })
  t.match(f('http_status: The server answered HTTP 404.'), { code: 'http_status', retryable: false })
  t.match(f('invalid_response: Slack answered HTTP 502 with a body that is not the expected JSON.'), { retryable: true })
  t.match(f('channel_not_found: Slack refused the message: channel_not_found.'), { code: 'channel_not_found', message: /refused/, retryable: false })
  t.match(f('credential_missing: The slack integration needs …'), { code: 'credential_missing', retryable: false })
  t.match(f('something odd without a code'), { code: 'action_failed', message: 'something odd without a code', retryable: false })
  t.equal(storedOutput(undefined), null)
  t.equal(storedOutput({ a: 1 }), '{"a":1}')
  const big = JSON.parse(storedOutput({ s: 'x'.repeat(MAX_OUTPUT_BYTES) })!)
  t.match(big, { truncated: true, excerpt: String })
})
