import t from 'tap'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { KB, createDoc, errorOf, search, setup, type Scene } from './kb-fixtures.js'

// The issue: "POST /knowledge-base/search (SearchRequest: query, top_k, optional document filter →
// SearchHitResponse[] with score, snippet, document, chunk) via SQLite FTS5/BM25 with Turkish and
// English text handled (diacritics, case)", and ranking sanity: the right document first.

const DOCS = {
  hours: ['Opening hours', 'The clinic is open Monday to Friday from 9 am to 6 pm. On Saturdays we open at 10 am.'],
  parking: ['Parking', 'Free parking is available in the garage behind the building. Bicycle racks are at the entrance.'],
  insurance: ['Insurance', 'We accept most private insurance plans. Bring your insurance card to every appointment.'],
  saatler: ['Çalışma saatleri', 'Kliniğimiz hafta içi 09:00 ile 18:00 arası açıktır. Cumartesi günleri saat 10:00’da açılır.'],
  ulasim: ['Ulaşım', 'İstanbul Kadıköy’deki şubemize metro ile ulaşabilirsiniz. Otopark binanın arkasındadır.'],
  cagri: ['Çağrı merkezi', 'Çağrı merkezimiz 7/24 hizmet verir. Acil durumlarda ÇAĞRI hattını arayın.'],
} as const
type Name = keyof typeof DOCS

async function corpus(s: Scene): Promise<Record<Name, string>> {
  const ids = {} as Record<Name, string>
  for (const [name, [title, text]] of Object.entries(DOCS)) ids[name as Name] = (await createDoc(s, title, text)).id
  return ids
}

t.test('the right document comes first for English and Turkish questions', async (t) => {
  const s = await setup(t)
  const ids = await corpus(s)
  const first = async (q: string) => (await search(s, q))[0]?.document.id
  const expectations: [string, Name][] = [
    ['When are you open on Saturday?', 'hours'],
    ['Where is the parking garage?', 'parking'],
    ['Do you take my insurance card?', 'insurance'],
    ['Cumartesi kaçta açılıyor?', 'saatler'],
    ['Otopark nerede?', 'ulasim'],
    ['metroyla nasıl ulaşırım', 'ulasim'],
    ['çağrı merkezi', 'cagri'],
  ]
  for (const [q, name] of expectations) t.equal(await first(q), ids[name], `"${q}" → ${DOCS[name][0]}`)

  const hits = await search(s, 'Where is the parking garage?')
  t.match(hits[0], { document: { id: ids.parking, title: 'Parking' }, chunk: { index: 0, text: DOCS.parking[1] }, snippet: DOCS.parking[1] })
  t.match(hits[0]!.chunk.id, /^[0-9a-f-]{36}$/)
  t.ok(
    hits.every((h) => h.score > 0),
    'scores are positive',
  )
  t.same(
    [...hits].sort((a, b) => b.score - a.score),
    hits,
    'best first',
  )
  t.notOk(
    hits.some((h) => h.document.id === ids.saatler),
    'documents sharing no word are not returned',
  )
})

t.test('case, Turkish dotted and dotless i and diacritics are ignored both ways', async (t) => {
  const s = await setup(t)
  const ids = await corpus(s)
  for (const q of ['İSTANBUL', 'ISTANBUL', 'istanbul', 'Istanbul', 'ıstanbul'])
    t.same(
      (await search(s, q)).map((h) => h.document.id),
      [ids.ulasim],
      `${q} finds İstanbul`,
    )
  for (const q of ['cagri', 'CAGRI', 'Çağrı', 'çağri', 'ÇAĞRI']) t.equal((await search(s, q))[0]?.document.id, ids.cagri, `${q} finds çağrı`)
  t.equal((await search(s, 'kadikoy'))[0]?.document.id, ids.ulasim, 'kadikoy finds Kadıköy’deki (apostrophe suffix)')
  t.equal((await search(s, 'SATURDAY'))[0]?.document.id, ids.hours, 'English upper case too')
  t.equal((await search(s, 'calisma saatleri'))[0]?.document.id, ids.saatler, 'a title matches')
})

t.test('query syntax never reaches FTS5: quotes, operators and punctuation are plain separators', async (t) => {
  const s = await setup(t)
  const ids = await corpus(s)
  const nasty = [
    '"',
    '"parking',
    'parking" OR "x',
    'NEAR(parking garage)',
    'title:parking',
    '{title body}: parking',
    'park*',
    '-parking',
    '^parking',
    'parking AND',
    'OR NOT AND',
    '(((',
    'a:b:c',
    "parking'; DROP TABLE knowledge_chunks; --",
    'park\u0000ing',
    '🚗 parking 🅿️',
    'x'.repeat(1000),
  ]
  for (const q of nasty) {
    const res = await s.send('POST', `${KB}/search`, { body: { query: q } })
    t.equal(res.status, 200, JSON.stringify(q.slice(0, 40)), { body: res.text })
  }
  t.equal((await search(s, 'title:parking'))[0]?.document.id, ids.parking, 'a column filter is just two words')
  t.equal((await search(s, 'NEAR(garage'))[0]?.document.id, ids.parking)
  t.same(await search(s, '?!*"()^:-'), [], 'a query with no letters or digits finds nothing')
  t.same(await search(s, 'AND'), [], 'an operator word alone is a word, found nowhere')
  t.same(errorOf(await s.send('POST', `${KB}/search`, { body: { query: '   ' } })), { status: 422, code: 'string_too_short' }, 'an empty query is a 422')
  t.equal((s.a.db.prepare('SELECT count(*) AS n FROM knowledge_chunks').get() as { n: number }).n, 6, 'nothing was dropped')
})

t.test('document_ids narrows the search; top_k bounds it', async (t) => {
  const s = await setup(t)
  const ids = await corpus(s)
  const q = 'open parking insurance'
  t.same(
    (await search(s, q, { document_ids: [ids.parking] })).map((h) => h.document.id),
    [ids.parking],
  )
  t.same(new Set((await search(s, q, { document_ids: [ids.parking, ids.insurance] })).map((h) => h.document.id)), new Set([ids.parking, ids.insurance]))
  t.same(await search(s, q, { document_ids: ['00000000-0000-4000-8000-000000000000'] }), [], 'an unknown id narrows to nothing')
  t.same(errorOf(await s.send('POST', `${KB}/search`, { body: { query: q, document_ids: [] } })), { status: 422, code: 'too_short' })
  t.same(errorOf(await s.send('POST', `${KB}/search`, { body: { query: q, document_ids: ['nope'] } })), { status: 422, code: 'uuid_parsing' })

  const long = Array.from({ length: 120 }, (_, i) => `Paragraph ${i} mentions the garden and other things worth a sentence.`).join('\n\n')
  const doc = await createDoc(s, 'Garden', long)
  t.ok(doc.chunk_count > 5, `${doc.chunk_count} chunks`)
  t.equal((await search(s, 'garden')).length, 5, 'top_k defaults to 5')
  t.equal((await search(s, 'garden', { top_k: 2 })).length, 2)
  t.equal((await search(s, 'garden', { top_k: 50 })).length, doc.chunk_count, 'never more than there are')
  for (const top_k of [0, 51, 1.5]) t.equal((await s.send('POST', `${KB}/search`, { body: { query: 'garden', top_k } })).status, 422, `top_k ${top_k}`)
})

t.test('a snippet is a window of the original text around the query words', async (t) => {
  const s = await setup(t)
  const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6)
  const text = `${filler}Acil durumlarda Çağrı Merkezi’ni arayın; operatörlerimiz yardımcı olur. ${filler}`
  await createDoc(s, 'Acil', text)
  const [hit] = await search(s, 'cagri merkezi')
  t.ok(hit, 'found')
  t.ok(hit!.snippet.length <= 242, `at most 240 characters and two ellipses (${hit!.snippet.length})`)
  t.match(hit!.snippet, /^….*Çağrı Merkezi’ni arayın.*…$/, 'original spelling, cut on both sides')
  t.equal(hit!.chunk.text, text.trim(), 'the whole chunk comes too')
})

t.test('the runtime adapter searches one environment and honours its AbortSignal', async (t) => {
  const s = await setup(t)
  const ids = await corpus(s)
  const projects = expectStatus(await s.send('GET', '/api/v1/projects'), 200, 'projects')
  const envs = projects[0].environments as { id: string; slug: string; is_default: boolean }[]
  const kb = s.a.services.knowledge.forScope({ organizationId: s.owner.organizationId, environmentId: envs.find((e) => e.is_default)!.id })
  const hits = await kb.search('İstanbul metro', 3, new AbortController().signal)
  t.equal(hits[0]?.document_id, ids.ulasim)
  t.match(hits[0], { chunk_id: /^[0-9a-f-]{36}$/, text: DOCS.ulasim[1], score: Number })
  t.same(
    (await kb.search('open', 5, new AbortController().signal, [ids.parking])).map((h) => h.document_id),
    [],
  )
  t.same(await kb.search('?!', 5, new AbortController().signal), [])
  const other = s.a.services.knowledge.forScope({ organizationId: s.owner.organizationId, environmentId: envs.find((e) => e.slug === 'staging')!.id })
  t.same(await other.search('istanbul', 5, new AbortController().signal), [], 'another environment sees nothing')
  const aborted = AbortSignal.abort(new Error('barge-in'))
  await t.rejects(kb.search('istanbul', 5, aborted), /barge-in/, 'an aborted turn does not search')
})
