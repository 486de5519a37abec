import t from 'tap'
import { DEFAULT_CHUNKING, affordableGroups, chunkText, matchExpression, queryTerms, snippet, termGroups } from '../../../api/knowledge-base/index.js'

// Pure parts of the knowledge base: the chunker (about 1000 characters, 150 shared with the next
// chunk, cut at paragraph, sentence or word boundaries) and the query builder (folded, quoted
// terms only: user text never becomes FTS5 syntax; the most common terms dropped over a budget).

const sentences = (n: number) => Array.from({ length: n }, (_, i) => `This is sentence ${i}, which has a handful of words.`).join(' ')

t.test('a short text is one chunk, trimmed; an empty one is none', async (t) => {
  t.same(chunkText('  Hello there.  '), [{ index: 0, text: 'Hello there.', start: 2, end: 14 }])
  t.same(chunkText(''), [])
  t.same(chunkText(' \n '), [])
})

t.test('a long text is cut at sentence ends, within the size, overlapping, covering everything', async (t) => {
  const text = sentences(100)
  const chunks = chunkText(text)
  t.ok(chunks.length >= 5, `${chunks.length} chunks`)
  for (const c of chunks) {
    t.ok(c.text.length <= DEFAULT_CHUNKING.maxChars, `chunk ${c.index} ≤ ${DEFAULT_CHUNKING.maxChars}`)
    t.ok(c.text.length >= DEFAULT_CHUNKING.maxChars / 2 || c.index === chunks.length - 1, `chunk ${c.index} is not a sliver`)
    t.equal(text.slice(c.start, c.end), c.text, 'offsets point at the chunk')
    if (c.index < chunks.length - 1) t.match(c.text, /\.$/, `chunk ${c.index} ends at a sentence end`)
  }
  for (let i = 1; i < chunks.length; i++) {
    const overlap = chunks[i - 1]!.end - chunks[i]!.start
    t.ok(overlap > 0 && overlap <= DEFAULT_CHUNKING.overlapChars, `chunks ${i - 1} and ${i} share ${overlap} characters`)
    t.match(chunks[i]!.text, /^\S/, 'a chunk starts at a word')
    t.notMatch(text[chunks[i]!.start - 1] ?? ' ', /\S/, 'and not mid-word')
  }
  t.equal(chunks[0]!.start, 0)
  t.equal(chunks.at(-1)!.end, text.length, 'the end of the text is in the last chunk')
})

t.test('paragraph breaks are preferred; a text without spaces is still cut', async (t) => {
  const para = (i: number) => `Paragraph ${i}. ` + 'word '.repeat(80).trim()
  const text = [para(1), para(2), para(3)].join('\n\n')
  const chunks = chunkText(text, { maxChars: 600, overlapChars: 50 })
  t.match(chunks[0]!.text, /^Paragraph 1\./)
  t.match(chunks[0]!.text, /word$/, 'the first chunk ends with its paragraph')
  const blob = 'x'.repeat(2500)
  const cut = chunkText(blob, { maxChars: 1000, overlapChars: 100 })
  t.same(
    cut.map((c) => c.text.length),
    [1000, 1000, 700],
  )
  t.throws(() => chunkText('x', { maxChars: 100, overlapChars: 60 }), RangeError, 'overlap over half the size is refused')
})

t.test('query terms are folded, deduplicated, stopwords dropped, prefixes for word forms', async (t) => {
  t.same(queryTerms('Where is the PARKING? parking!'), [{ word: 'parking', prefix: 'parki' }])
  t.same(queryTerms('Çağrı İSTANBUL ışık'), [
    { word: 'cagri', prefix: 'cagri' },
    { word: 'istanbul', prefix: 'istan' },
    { word: 'isik', prefix: null },
  ])
  t.same(
    queryTerms('the and of'),
    [
      { word: 'the', prefix: null },
      { word: 'and', prefix: null },
      { word: 'of', prefix: null },
    ],
    'only stopwords: kept',
  )
  t.same(queryTerms('?!*"()^:-'), [])
  t.equal(queryTerms(Array.from({ length: 40 }, (_, i) => `w${i}x`).join(' ')).length, 16, 'at most 16 terms')
})

t.test('the match expression holds quoted letter/digit runs and OR only', async (t) => {
  t.equal(matchExpression(queryTerms('car park parking cagri')), '"car" OR "park" OR ("parking" OR "parki"*) OR "cagri"*')
  t.equal(matchExpression([]), null)
  t.same(termGroups(queryTerms('Parking parking PARKİNG')), ['("parking" OR "parki"*)'], 'one group per distinct term')
  const hostile = 'a" OR b NEAR(c d) title:e {x y}: f* ^g -h AND NOT i'
  const expr = matchExpression(queryTerms(hostile))!
  t.match(expr, /^\(?"[a-z0-9]+"\*?\)?( OR \(?"[a-z0-9]+"\*?\)?)*$/, expr)
})

t.test('a snippet centres on the query words and keeps the original spelling', async (t) => {
  const text = `${'Başka bir konu hakkında uzun bir giriş cümlesi. '.repeat(8)}Çağrı Merkezimiz 7/24 açıktır. ${'Sonra gelen başka cümleler. '.repeat(8)}`
  const s = snippet(text, queryTerms('cagri merkezi'))
  t.ok(s.length <= 242)
  t.match(s, /^…/)
  t.match(s, /…$/)
  t.match(s, /Çağrı Merkezimiz 7\/24 açıktır\./)
  t.equal(snippet('Short text.', queryTerms('x')), 'Short text.', 'a short chunk is its own snippet')
  t.match(snippet(text, queryTerms('absent')), /^Başka bir konu.*…$/, 'without a hit, the chunk’s start')
})

t.test('over the budget, the most common terms are left out, the rarest always kept', async (t) => {
  const counted = [
    { group: 'common', matches: 3001 },
    { group: 'rare', matches: 40 },
    { group: 'middle', matches: 2500 },
    { group: 'rarer', matches: 3 },
  ]
  t.same(affordableGroups(counted, 3000), ['rarer', 'rare', 'middle'])
  t.same(affordableGroups(counted, 100), ['rarer', 'rare'])
  t.same(
    affordableGroups(
      [
        { group: 'a', matches: 9000 },
        { group: 'b', matches: 5000 },
      ],
      3000,
    ),
    ['b'],
    'all common: the least common alone',
  )
  t.same(
    affordableGroups(
      [
        { group: 'a', matches: 10 },
        { group: 'b', matches: 20 },
      ],
      3000,
    ),
    ['a', 'b'],
    'within the budget: every term',
  )
})
