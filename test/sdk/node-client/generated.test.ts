import t from 'tap'
import fs from 'node:fs'
import { GENERATED_FILE, buildOpenApiDocument, generateNodeTypes } from '../../../scripts/sdk/generate-node.js'

// sdk/node/src/generated/openapi.ts is the client's view of the API. It must be what the generator
// makes from today's routes: a route added, removed or changed without `npm run sdk:generate:node`
// fails here.

t.test('the committed types are a fresh generation from the routes', async (t) => {
  const committed = fs.readFileSync(GENERATED_FILE, 'utf8')
  const fresh = await generateNodeTypes()
  t.ok(committed === fresh, 'sdk/node/src/generated/openapi.ts is stale: run npm run sdk:generate:node and commit it')
})

t.test('the generator reads every operation of the document the server serves', async (t) => {
  const doc = (await buildOpenApiDocument()) as { paths: Record<string, Record<string, { operationId: string }>> }
  const committed = fs.readFileSync(GENERATED_FILE, 'utf8')
  const operationIds = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId))
  t.ok(operationIds.length > 100, `${operationIds.length} operations`)
  // openapi-typescript quotes a key only when it is not an identifier.
  const declared = (id: string) => committed.includes(`    ${id}: {`) || committed.includes(`    ${JSON.stringify(id)}: {`)
  const missing = operationIds.filter((id) => !declared(id))
  t.same(missing, [], 'each operation has its type')
})
