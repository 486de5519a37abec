import t, { type Test } from 'tap'
import { addMember, createKey, expectStatus } from '../../helpers/tenancy-fixtures.js'
import { KB, createDoc, errorOf, setup, upload, type Scene } from './kb-fixtures.js'

// The spec's scopes: knowledge_base:read "View the knowledge base", knowledge_base:write "Edit the
// knowledge base". Reading covers listing, reading and searching; writing covers creating,
// uploading and deleting. Nothing else grants either (workflow:read does not).

type Auth = { apiKey: string } | { token: string }

/** Every knowledge-base operation once, as `auth`, against a document the owner made. */
async function tryAll(s: Scene, auth: Auth) {
  const { id } = await createDoc(s, 'Owner’s doc', 'The owner wrote about parking.')
  const as = (o: object = {}) => ({ ...o, ...auth })
  const up = 'apiKey' in auth ? { apiKey: auth.apiKey } : { token: auth.token }
  return {
    id,
    list: await s.a.request('GET', `${KB}/documents`, as()),
    get: await s.a.request('GET', `${KB}/documents/${id}`, as()),
    search: await s.a.request('POST', `${KB}/search`, as({ body: { query: 'parking' } })),
    create: await s.a.request('POST', `${KB}/documents`, as({ body: { title: 'New', text: 'New text.' } })),
    upload: await upload(s, { name: 'n.txt', data: Buffer.from('Uploaded text.') }, [], up),
    delete: await s.a.request('DELETE', `${KB}/documents/${id}`, as()),
  }
}

const READS = ['list', 'get', 'search'] as const
const WRITES = ['create', 'upload', 'delete'] as const
const SUCCESS = { list: 200, get: 200, search: 200, create: 201, upload: 201, delete: 204 } as const
type Result = Awaited<ReturnType<typeof tryAll>>

function expectGrants(t: Test, r: Result, allowed: readonly (keyof typeof SUCCESS)[], who: string) {
  for (const op of [...READS, ...WRITES]) {
    if (allowed.includes(op)) t.equal(r[op].status, SUCCESS[op], `${who}: ${op} allowed`, { body: r[op].text })
    else t.same(errorOf(r[op]), { status: 403, code: 'permission_denied' }, `${who}: ${op} denied`)
  }
}

const exists = async (s: Scene, id: string) => (await s.send('GET', `${KB}/documents/${id}`)).status === 200
const titles = async (s: Scene) =>
  expectStatus(await s.send('GET', `${KB}/documents`), 200, 'list')
    .map((d: { title: string }) => d.title)
    .sort()

t.test('a workflow:read key reaches nothing of the knowledge base', async (t) => {
  const s = await setup(t)
  const { key } = await createKey(s.a, s.owner, ['workflow:read'])
  const r = await tryAll(s, { apiKey: key })
  expectGrants(t, r, [], 'workflow:read')
  t.match(r.search.body.error.message, /knowledge_base:read/)
  t.match(r.upload.body.error.message, /knowledge_base:write/)
  t.ok(await exists(s, r.id), 'the denied delete deleted nothing')
  t.same(await titles(s), ['Owner’s doc'], 'the denied create and upload stored nothing')
})

t.test('a knowledge_base:read key lists, reads and searches, but cannot write', async (t) => {
  const s = await setup(t)
  const { key } = await createKey(s.a, s.owner, ['knowledge_base:read'])
  const r = await tryAll(s, { apiKey: key })
  expectGrants(t, r, READS, 'knowledge_base:read')
  t.equal(r.search.body[0]?.document.id, r.id, 'the search found the document')
  t.ok(await exists(s, r.id))
  t.same(await titles(s), ['Owner’s doc'])
})

t.test('a knowledge_base:write key writes but does not read; both scopes do everything', async (t) => {
  const s = await setup(t)
  const writer = await createKey(s.a, s.owner, ['knowledge_base:write'])
  const w = await tryAll(s, { apiKey: writer.key })
  expectGrants(t, w, WRITES, 'knowledge_base:write')
  t.notOk(await exists(s, w.id), 'the delete happened')
  t.same(await titles(s), ['New', 'n'])
  const both = await createKey(s.a, s.owner, ['knowledge_base:read', 'knowledge_base:write'])
  expectGrants(t, await tryAll(s, { apiKey: both.key }), [...READS, ...WRITES], 'both scopes')
})

t.test('a viewer reads and searches; a developer also writes', async (t) => {
  const s = await setup(t)
  const viewer = await addMember(s.a, s.owner, 4)
  expectGrants(t, await tryAll(s, { token: viewer.token }), READS, 'viewer')
  const developer = await addMember(s.a, s.owner, 3)
  expectGrants(t, await tryAll(s, { token: developer.token }), [...READS, ...WRITES], 'developer')
})
