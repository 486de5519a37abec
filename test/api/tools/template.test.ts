import t from 'tap'
import { actionCall, checkArguments } from '../../../api/tools/runner.js'
import { pinLibraryTools } from '../../../api/tools/pinning.js'
import { placeholders, placeholdersIn, renderJson, renderText } from '../../../api/tools/template.js'

// The pure parts of a tool run: placeholders, the request built from arguments, argument checks
// and publish-time pinning.

t.test('placeholders are found in text and in JSON strings', async (t) => {
  t.same(placeholders('https://x.test/{{a}}/{{ b }}?q={{c.d}}'), ['a', 'b', 'c.d'])
  t.same(placeholdersIn({ x: ['{{a}}', { y: 'z {{b}}' }], n: 1 }), ['a', 'b'])
  t.same(placeholders('{{not closed} {{}} {{a b}}'), [])
})

t.test('rendering: text replaces, a lone placeholder keeps its type, missing leaves the key out', async (t) => {
  t.equal(renderText('a={{a}} b={{b}} c={{c}}', { a: 'x', b: 2, c: { k: [1] } }), 'a=x b=2 c={"k":[1]}')
  t.equal(renderText('/{{a}}', { a: 'x/y z' }, encodeURIComponent), '/x%2Fy%20z')
  t.same(renderJson({ n: '{{n}}', s: 'n is {{n}}', gone: '{{missing}}', list: ['{{missing}}', '{{b}}'] }, { n: 3, b: false }), {
    n: 3,
    s: 'n is 3',
    gone: undefined,
    list: [null, false],
  })
})

const http = (runs: Record<string, unknown>) => ({
  runs: { type: 'http' as const, method: 'POST' as const, headers: {}, timeout_ms: 1000, url: 'https://api.test/x', ...runs },
  secretHeaders: { Authorization: 'Bearer s' },
})

t.test('the http request an HTTP tool sends', async (t) => {
  t.same(actionCall(http({}) as never, { a: 1 }), {
    integration: 'http',
    action: 'request',
    input: { method: 'POST', url: 'https://api.test/x', headers: { Authorization: 'Bearer s' }, timeout_ms: 1000, body: { a: 1 } },
  })
  const get = actionCall(http({ method: 'GET', url: 'https://api.test/o/{{id}}' }) as never, { id: 'a b', page: 2, q: 'x&y' })
  t.equal(get.input.url, 'https://api.test/o/a%20b?page=2&q=x%26y')
  t.notOk('body' in get.input)
  const scalar = actionCall(http({ body: '{{n}}' }) as never, { n: 5 })
  t.match(scalar.input, { body: '5', headers: { 'content-type': 'application/json' } })
  const header = actionCall(http({ headers: { 'X-Id': 'id-{{id}}' } }) as never, { id: 'a\r\nb' })
  t.equal((header.input.headers as Record<string, string>)['X-Id'], 'id-a\r\nb', 'passed on as is: the http action refuses control characters')
})

t.test('arguments are checked against the parameters', async (t) => {
  const params = { type: 'object', properties: { id: { type: 'string', minLength: 2 } }, required: ['id'], additionalProperties: false }
  t.equal(checkArguments(params, { id: 'ab' }), null)
  t.match(checkArguments(params, {}), /id/)
  t.match(checkArguments(params, { id: 'a' }), /id/)
  t.ok(checkArguments(params, { id: 'ab', other: 1 }))
})

t.test('publishing pins unpinned library tools and reports unknown ones where they are', async (t) => {
  const definition = {
    nodes: [
      { id: 'start', type: 'start' },
      {
        id: 'c',
        type: 'conversation',
        data: { prompt: 'p', tools: [{ integration: 'slack', action: 'post_message' }, { tool_id: 'T1' }, { tool_id: 'T2', version: 1 }] },
      },
      { id: 'n', type: 'tool', data: { action: { tool_id: 'T3' } } },
    ],
  }
  const versions: Record<string, number> = { T1: 4, T2: 7 }
  const versionOf = (r: { tool_id: string; version?: number }) => (r.tool_id in versions ? (r.version ?? versions[r.tool_id]!) : null)
  const { json, problems } = pinLibraryTools(JSON.stringify(definition), versionOf, ['draft', 'definition'])
  t.same(problems, [
    { loc: ['draft', 'definition', 'nodes', 2, 'data', 'action', 'tool_id'], msg: 'The organization has no such tool (or version)', input: 'T3' },
  ])
  t.same(JSON.parse(json).nodes[1].data.tools, [
    { integration: 'slack', action: 'post_message' },
    { tool_id: 'T1', version: 4 },
    { tool_id: 'T2', version: 1 },
  ])
  const plain = JSON.stringify({ nodes: [{ id: 'start', type: 'start' }] })
  t.equal(pinLibraryTools(plain, versionOf, []).json, plain, 'a graph without library tools is returned as it was')
})
