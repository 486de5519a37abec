import t from 'tap'
import { ManualClock } from '../../../core/index.js'
import { createKey, expectStatus, newOwner } from '../../helpers/tenancy-fixtures.js'
import { KB, createDoc, errorOf, search, setup } from './kb-fixtures.js'

// The spec: GET/POST /knowledge-base/documents (JSON DocumentCreate → 201 DocumentResponse); the
// issue: "plus delete/get a document (not shown; add)". Documents belong to one environment of one
// organization; another organization's document is 404, like one that does not exist.

t.test('a document is created, listed, read with its text and deleted', async (t) => {
  const s = await setup(t)
  const text = 'Our clinic opens at nine.\r\n\r\n\r\nWe   close at six.'
  const res = await s.send('POST', `${KB}/documents`, { body: { title: ' Hours ', text, source: 'https://example.com/hours', metadata: { lang: 'en', v: 2 } } })
  const doc = expectStatus(res, 201, 'create')
  t.match(doc, { title: 'Hours', source: 'https://example.com/hours', content_type: 'text/plain', chunk_count: 1, metadata: { lang: 'en', v: 2 } })
  t.equal(doc.size_bytes, Buffer.byteLength(text.trim()), 'size of the text as sent (trimmed)')
  t.equal(doc.char_count, 'Our clinic opens at nine.\n\nWe close at six.'.length, 'whitespace is cleaned before indexing')
  t.notOk('text' in doc, 'the create response is a DocumentResponse, without the text')
  t.equal(Date.parse(doc.created_at), s.a.clock.now())

  const list = expectStatus(await s.send('GET', `${KB}/documents`), 200, 'list')
  t.same(
    list.map((d: { id: string }) => d.id),
    [doc.id],
  )
  t.notOk('text' in list[0], 'the list leaves the text out')

  const detail = expectStatus(await s.send('GET', `${KB}/documents/${doc.id}`), 200, 'get')
  t.equal(detail.text, 'Our clinic opens at nine.\n\nWe close at six.')
  t.same({ ...detail, text: undefined }, { ...doc, text: undefined }, 'the detail is the response plus the text')

  t.equal((await s.send('DELETE', `${KB}/documents/${doc.id}`)).status, 204)
  t.same(errorOf(await s.send('GET', `${KB}/documents/${doc.id}`)), { status: 404, code: 'not_found' })
  t.same(errorOf(await s.send('DELETE', `${KB}/documents/${doc.id}`)), { status: 404, code: 'not_found' }, 'a second delete finds nothing')
  t.same(expectStatus(await s.send('GET', `${KB}/documents`), 200, 'list'), [])
  t.same(await search(s, 'clinic'), [], 'search forgets a deleted document')
  const left = s.a.db
    .prepare(
      "SELECT (SELECT count(*) FROM knowledge_chunks) AS chunks, (SELECT count(*) FROM knowledge_fts WHERE knowledge_fts MATCH 'clinic OR six OR hours') AS indexed",
    )
    .get()
  t.same(left, { chunks: 0, indexed: 0 }, 'its chunks and index rows are gone')
  t.doesNotThrow(() => s.a.db.prepare("INSERT INTO knowledge_fts (knowledge_fts) VALUES ('integrity-check')").run(), 'the index is consistent')
})

t.test('a long document is cut into overlapping chunks, newest documents listed first', async (t) => {
  const clock = new ManualClock()
  const s = await setup(t, { clock })
  const sentence = (i: number) => `Sentence number ${i} talks about topic ${i % 7} in some detail.`
  const text = Array.from({ length: 120 }, (_, i) => sentence(i)).join(' ')
  const first = await createDoc(s, 'Long', text)
  t.ok(first.chunk_count >= 7 && first.chunk_count <= 12, `${first.chunk_count} chunks of about 1000 characters`)
  const rows = s.a.db.prepare('SELECT text FROM knowledge_chunks WHERE document_id = ? ORDER BY chunk_index').all(first.id) as { text: string }[]
  t.equal(rows.length, first.chunk_count)
  for (const [i, r] of rows.entries()) {
    t.ok(r.text.length <= 1000, `chunk ${i} within 1000 characters`)
    if (i > 0)
      t.ok(rows[i - 1]!.text.endsWith(r.text.slice(0, 40)) || rows[i - 1]!.text.includes(r.text.slice(0, 40)), `chunk ${i} starts inside the previous one`)
  }
  clock.advance(1000)
  const second = await createDoc(s, 'Short', 'Tiny.')
  const list = expectStatus(await s.send('GET', `${KB}/documents`), 200, 'list')
  t.same(
    list.map((d: { id: string }) => d.id),
    [second.id, first.id],
  )
})

t.test('invalid documents are refused with pointed 422s', async (t) => {
  const s = await setup(t)
  const bad = async (body: unknown) => (await s.send('POST', `${KB}/documents`, { body })).body?.detail?.map((d: { loc: unknown[] }) => d.loc.join('.'))
  t.same(await bad({ title: '', text: 'x' }), ['body.title'])
  t.same(await bad({ title: 'x', text: '   ' }), ['body.text'])
  t.same(await bad({ title: 'x' }), ['body.text'])
  t.same(await bad({ title: 'x'.repeat(201), text: 'x' }), ['body.title'])
  t.same(await bad({ title: 'x', text: 'y', metadata: { nested: { no: 1 } } }), ['body.metadata.nested'])
  t.same(await bad({ title: 'x', text: 'y', source: '' }), ['body.source'])
  t.same(expectStatus(await s.send('GET', `${KB}/documents`), 200, 'list'), [], 'nothing was stored')
  t.same(errorOf(await s.send('GET', `${KB}/documents/not-a-uuid`)), { status: 422, code: 'uuid_parsing' })
})

t.test('documents belong to one environment and one organization', async (t) => {
  const s = await setup(t)
  const staging = { 'x-environment-id': 'staging' }
  const inStaging = await createDoc(s, 'Staging notes', 'Staging only: the parrot is green.', staging)
  const inDefault = await createDoc(s, 'Default notes', 'Default only: the parrot is blue.')

  const ids = async (headers?: Record<string, string>) =>
    expectStatus(await s.send('GET', `${KB}/documents`, { headers }), 200, 'list').map((d: { id: string }) => d.id)
  t.same(await ids(), [inDefault.id], 'the default environment lists its own')
  t.same(await ids(staging), [inStaging.id], 'staging lists its own')
  t.same(errorOf(await s.send('GET', `${KB}/documents/${inStaging.id}`)), { status: 404, code: 'not_found' }, 'not readable from another environment')
  t.same(errorOf(await s.send('DELETE', `${KB}/documents/${inStaging.id}`)), { status: 404, code: 'not_found' }, 'not deletable from another environment')
  t.same(
    (await search(s, 'parrot')).map((h) => h.document.id),
    [inDefault.id],
    'search sees only its environment',
  )
  t.same(
    (await search(s, 'parrot', {}, staging)).map((h) => h.document.id),
    [inStaging.id],
  )

  const other = await newOwner(s.a)
  const key = await createKey(s.a, other)
  for (const auth of [{ token: other.token }, { apiKey: key.key }]) {
    t.same(
      errorOf(await s.a.request('GET', `${KB}/documents/${inDefault.id}`, auth)),
      { status: 404, code: 'not_found' },
      "another organization's id is not found",
    )
    t.same(errorOf(await s.a.request('DELETE', `${KB}/documents/${inDefault.id}`, auth)), { status: 404, code: 'not_found' })
    t.same(expectStatus(await s.a.request('GET', `${KB}/documents`, auth), 200, 'list'), [])
    const found = expectStatus(await s.a.request('POST', `${KB}/search`, { ...auth, body: { query: 'parrot', document_ids: [inDefault.id] } }), 200, 'search')
    t.same(found, [], "naming another organization's document in the filter finds nothing")
  }
  t.equal((await s.send('GET', `${KB}/documents/${inDefault.id}`)).status, 200, 'the owner still has it')
})
