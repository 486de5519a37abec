import t from 'tap'
import { startTestApp } from '../../helpers/app.js'
import { expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'

// Every part of a tool is checked at save, with a 422 pointing at the offending field: the name
// (a function name the runtime does not use itself), the parameters (the bounded JSON Schema
// subset, compiled), placeholders (only declared arguments, never in the host), what runs, and
// the destination (the outbound guard).

const TOOLS = '/api/v1/tools'
const VALID = {
  name: 'create_ticket',
  description: 'Open a support ticket.',
  parameters: { type: 'object', properties: { subject: { type: 'string' }, priority: { type: 'integer', minimum: 1, maximum: 5 } }, required: ['subject'] },
  runs: { type: 'http', url: 'https://93.184.216.34/tickets', body: { title: '{{subject}}', level: '{{priority}}' } },
}

function nest(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: 'string' }
  for (let i = 0; i < levels; i++) node = { type: 'object', properties: { x: node } }
  return node
}

t.test('bad tools are refused with a 422 at the field', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const cases: [string, Record<string, unknown>, (string | number)[], RegExp][] = [
    ['a name with a space', { name: 'create ticket' }, ['body', 'name'], /starts with a letter/],
    ['a name over 64 characters', { name: `t${'x'.repeat(64)}` }, ['body', 'name'], /at most 64/],
    ['the runtime’s own name', { name: 'set_variables' }, ['body', 'name'], /reserved/],
    ['an intent transition name', { name: 'transition_e1' }, ['body', 'name'], /reserved/],
    ['an integration-style name', { name: 'slack__post_message' }, ['body', 'name'], /reserved/],
    ['an empty description', { description: ' ' }, ['body', 'description'], /at least 1|too small|>=1/i],
    ['a description over 1024 characters', { description: 'x'.repeat(1025) }, ['body', 'description'], /1024/],
    ['parameters whose root is not an object', { parameters: { type: 'string' } }, ['body', 'parameters', 'type'], /root of the schema must be/],
    [
      'an unsupported keyword',
      { parameters: { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } } },
      ['body', 'parameters', 'properties', 'a'],
      /pattern/,
    ],
    ['an unknown type', { parameters: { type: 'object', properties: { a: { type: 'text' } } } }, ['body', 'parameters', 'properties', 'a', 'type'], /./],
    ['parameters nested too deep', { parameters: nest(14) }, ['body', 'parameters'], /deep|levels|nest/i],
    [
      'parameters over 16 KiB',
      {
        parameters: {
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`p${i}`, { type: 'string', description: 'd'.repeat(200) }])),
        },
      },
      ['body', 'parameters'],
      /bytes|large|KiB/i,
    ],
    [
      'a placeholder that is not a parameter',
      { runs: { type: 'http', url: 'https://93.184.216.34/t/{{ticket}}' } },
      ['body', 'runs', 'url'],
      /\{\{ticket\}\} is not a property/,
    ],
    ['a placeholder in the host', { runs: { type: 'http', url: 'https://{{subject}}.example.com/t' } }, ['body', 'runs', 'url'], /host/],
    ['a URL that is not http', { runs: { type: 'http', url: 'ftp://93.184.216.34/t' } }, ['body', 'runs', 'url'], /http or https/],
    ['a body on GET', { runs: { type: 'http', method: 'GET', url: 'https://93.184.216.34/t', body: { a: 1 } } }, ['body', 'runs', 'body'], /GET/],
    ['a timeout over 30 s', { runs: { type: 'http', url: 'https://93.184.216.34/t', timeout_ms: 30001 } }, ['body', 'runs', 'timeout_ms'], /30000/],
    ['a timeout under 100 ms', { runs: { type: 'http', url: 'https://93.184.216.34/t', timeout_ms: 50 } }, ['body', 'runs', 'timeout_ms'], /100/],
    ['a reserved header', { runs: { type: 'http', url: 'https://93.184.216.34/t', headers: { Host: 'x' } } }, ['body', 'runs', 'headers', 'Host'], /transport/],
    [
      'a header value with a newline',
      { runs: { type: 'http', url: 'https://93.184.216.34/t', headers: { 'X-A': 'a\r\nX-B: b' } } },
      ['body', 'runs', 'headers', 'X-A'],
      /control/,
    ],
    [
      'a placeholder in a secret header',
      { secret_headers: { Authorization: 'Bearer {{subject}}' } },
      ['body', 'secret_headers', 'Authorization'],
      /no placeholders/,
    ],
    [
      'an unknown integration',
      { runs: { type: 'integration', integration: 'telegram', action: 'send' } },
      ['body', 'runs', 'integration'],
      /no such integration/,
    ],
    ['an unknown action', { runs: { type: 'integration', integration: 'slack', action: 'send' } }, ['body', 'runs', 'action'], /post_message/],
    ['an unknown runs type', { runs: { type: 'shell', command: 'ls' } }, ['body', 'runs', 'type'], /./],
    [
      'secret headers on an integration',
      { runs: { type: 'integration', integration: 'slack', action: 'post_message' }, secret_headers: { A: 'b' } },
      ['body', 'secret_headers'],
      /integration/,
    ],
  ]
  for (const [what, change, loc, msg] of cases) {
    const res = await a.request('POST', TOOLS, { token: owner.token, body: { ...VALID, ...change } })
    t.equal(res.status, 422, `${what}: ${res.text.slice(0, 300)}`)
    t.ok(
      res.body.detail?.some((d: { loc: (string | number)[]; msg: string }) => JSON.stringify(d.loc) === JSON.stringify(loc) && msg.test(d.msg)),
      `${what}: detail at ${loc.join('.')} matching ${msg} (got ${JSON.stringify(res.body.detail)})`,
    )
  }
  t.same(expectStatus(await a.request('GET', TOOLS, { token: owner.token }), 200, 'list'), [], 'nothing was stored')
  expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: VALID }), 201, 'the valid tool is accepted')
})

t.test('an update is checked whole: a new schema must still declare the placeholders in use', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const { id } = expectStatus(await a.request('POST', TOOLS, { token: owner.token, body: VALID }), 201, 'create')
  const res = await a.request('PATCH', `${TOOLS}/${id}`, {
    token: owner.token,
    body: { parameters: { type: 'object', properties: { other: { type: 'string' } } } },
  })
  t.equal(res.status, 422)
  t.match(res.body.detail, [{ loc: ['body', 'runs', 'body'], msg: /\{\{subject\}\} is not a property/ }])
  t.equal((await a.request('PATCH', `${TOOLS}/${id}`, { token: owner.token, body: {} })).status, 422, 'an empty update')
  t.match(expectStatus(await a.request('GET', `${TOOLS}/${id}`, { token: owner.token }), 200, 'get'), { latest_version: 1 }, 'no version was written')
})

t.test('the outbound guard refuses a private, loopback or metadata host at save', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  for (const url of ['http://127.0.0.1:8080/x', 'http://10.1.2.3/x', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/x']) {
    const res = await a.request('POST', TOOLS, { token: owner.token, body: { ...VALID, runs: { type: 'http', url } } })
    t.equal(res.status, 422, url)
    t.match(res.body.detail, [{ type: 'destination_refused', loc: ['body', 'runs', 'url'] }], url)
  }
})

t.test('at most 200 tools per organization', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const now = Date.now()
  const insert = a.db.prepare('INSERT INTO tools (id, organization_id, name, latest_version, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)')
  for (let i = 0; i < 200; i++) insert.run(crypto.randomUUID(), owner.organizationId, `filler_${i}`, now, now)
  t.match(await a.request('POST', TOOLS, { token: owner.token, body: VALID }), { status: 409, body: { error: { code: 'tool_limit' } } })
})
