import fs from 'node:fs'
import t from 'tap'
import { generatePython, openApiDocument, PYTHON_GENERATED_FILE } from '../../../scripts/sdk/generate-python.js'
import { pythonProblem, runPython } from './python.js'

// sdk/python/ozan/_generated.py is committed; it must be what the generator makes from the routes
// as they are now. A route added or changed without regenerating fails here: run
// `npm run sdk:generate:python`.

t.test('the committed _generated.py matches a fresh generation from the routes', async (t) => {
  const fresh = generatePython(await openApiDocument())
  const committed = fs.readFileSync(PYTHON_GENERATED_FILE, 'utf8')
  if (committed === fresh) return t.pass('current')
  const a = committed.split('\n')
  const b = fresh.split('\n')
  const line = a.findIndex((l, i) => l !== b[i])
  t.fail(`stale from line ${line + 1}: run npm run sdk:generate:python`, { committed: a[line], fresh: b[line] })
})

// Without python3 this is skipped, except in CI, where runPython then fails the test.
const noPython = process.env.CI === 'true' ? false : (pythonProblem() ?? false)
t.test('a fresh generation is valid Python', { skip: noPython }, async (t) => {
  const fresh = generatePython(await openApiDocument())
  const res = await runPython(['-c', 'import sys; compile(sys.stdin.read(), "_generated.py", "exec")'], fresh)
  t.equal(res.code, 0, res.code === 0 ? 'compiles' : res.stderr)
})

t.test('every operation of the document has its method, named after its operationId', async (t) => {
  const doc = (await openApiDocument()) as { paths: Record<string, Record<string, { operationId: string }>> }
  const source = generatePython(doc)
  const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId))
  t.ok(ids.length > 100)
  t.same(
    ids.filter((id) => !source.includes(`    def ${id}(self`)),
    [],
    'no operation without its method',
  )
})

t.test('names are Pythonic and keywords are escaped', async (t) => {
  const doc = {
    paths: {
      '/api/v1/things/{thingId}': {
        get: {
          operationId: 'things_get',
          parameters: [
            { name: 'thingId', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'from', in: 'query', required: false, schema: { type: 'string', format: 'date-time' } },
          ],
          responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing-Out' } } } } },
        },
      },
    },
    components: {
      schemas: { 'Thing-Out': { type: 'object', properties: { class: { type: 'string' }, n: { type: ['integer', 'null'] } }, required: ['class'] } },
    },
  }
  const source = generatePython(doc)
  t.match(source, 'def things_get(self, thing_id: "str", *, from_: "str | None" = None) -> "Thing_Out":')
  t.match(source, 'f"/api/v1/things/{_segment(thing_id)}", query={"from": from_}')
  t.match(source, 'Thing_Out = TypedDict(\n    "Thing_Out",\n    {\n        "class": "str",\n        "n": NotRequired["int | None"],')
})
