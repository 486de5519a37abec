import t from 'tap'
import { expectStatus } from '../../helpers/tenancy-fixtures.js'
import { KB, errorOf, fixture, multipart, search, setup, upload } from './kb-fixtures.js'

// The issue: "POST /knowledge-base/documents/upload (multipart Body_knowledge-base_upload_document:
// txt, md, html, pdf, docx via well-kept parsers) … unsupported type → 415/422; a corrupt PDF → a
// clear 4xx, never a 500." The files are small real ones (test/fixtures/knowledge/generate.ts).

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
const CASES = [
  {
    file: 'opening-hours.txt',
    type: 'text/plain',
    contentType: 'text/plain',
    has: ['The Kadıköy clinic is open from Monday to Saturday', 'Pazar günleri kapalıyız; acil çağrı hattı 7/24 açıktır.'],
    lacks: [],
  },
  {
    file: 'parking.md',
    type: 'text/markdown',
    contentType: 'text/markdown',
    has: [
      'Parking and directions',
      'Free parking is available behind the building for up to two hours.',
      'Take the M4 metro to Ünalan.',
      'Otopark girişi İSTANBUL caddesi',
    ],
    lacks: ['**', '# ', '](', 'https://example.com'],
  },
  {
    file: 'prices.html',
    type: 'text/html',
    contentType: 'text/html',
    has: ['Price list', 'A dental cleaning costs 1.500 TL.', 'Whitening: 4.000 TL', 'Diş teli muayenesi ücretsizdir.'],
    lacks: ['<', 'scriptsecret', 'color: red'],
  },
  {
    file: 'insurance.pdf',
    type: 'application/pdf',
    contentType: 'application/pdf',
    has: ['Insurance policy', 'We accept the Allianz and Axa private insurance plans.', 'Bring your insurance card to every appointment.'],
    lacks: [],
  },
  {
    file: 'cancellation.docx',
    type: DOCX,
    contentType: DOCX,
    has: ['Cancellation policy', 'Appointments can be cancelled free of charge up to 24 hours before.', 'Randevu iptali için çağrı merkezimizi arayın.'],
    lacks: ['<w:'],
  },
]

t.test('each supported file type is uploaded with its text extracted and searchable', async (t) => {
  const s = await setup(t)
  for (const c of CASES) {
    const data = fixture(c.file)
    // Declared as a generic binary: the kind comes from the name, not the client's guess.
    const doc = expectStatus(await upload(s, { name: c.file, data, type: 'application/octet-stream' }), 201, `upload ${c.file}`)
    t.match(doc, { title: c.file.replace(/\.\w+$/, ''), source: c.file, content_type: c.contentType, size_bytes: data.length, chunk_count: 1 }, c.file)
    const { text } = expectStatus(await s.send('GET', `${KB}/documents/${doc.id}`), 200, 'get')
    for (const phrase of c.has) t.ok(text.includes(phrase), `${c.file}: has "${phrase}"`, { text })
    for (const junk of c.lacks) t.notOk(text.includes(junk), `${c.file}: no "${junk}"`, { text })
  }
  t.equal((await search(s, 'Allianz'))[0]?.document.title, 'insurance', 'PDF text is indexed')
  t.equal((await search(s, 'iptal'))[0]?.document.title, 'cancellation', 'DOCX text is indexed')
})

t.test('a title field names the document; the declared type stands in for a missing extension', async (t) => {
  const s = await setup(t)
  const titled = expectStatus(
    await upload(s, { name: 'faq.md', data: Buffer.from('# FAQ\n\nYes.') }, [{ name: 'title', value: 'Frequent questions' }]),
    201,
    'titled',
  )
  t.match(titled, { title: 'Frequent questions', source: 'faq.md', content_type: 'text/markdown' })
  const bare = expectStatus(
    await upload(s, { name: 'notes', data: Buffer.from('<p>Hello <b>there</b></p>'), type: 'text/html; charset=utf-8' }),
    201,
    'no extension',
  )
  t.match(bare, { title: 'notes', content_type: 'text/html' })
  t.equal(expectStatus(await s.send('GET', `${KB}/documents/${bare.id}`), 200, 'get').text, 'Hello there')
  const pathy = expectStatus(await upload(s, { name: 'C:\\Users\\me\\hours.txt', data: Buffer.from('Open daily.') }), 201, 'path in name')
  t.match(pathy, { title: 'hours', source: 'hours.txt' }, 'a client-side path is dropped from the name')
})

t.test('an unsupported file type is 415 unsupported_file_type and stores nothing', async (t) => {
  const s = await setup(t)
  for (const [name, type] of [
    ['tool.exe', 'application/octet-stream'],
    ['sheet.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['photo.png', 'image/png'],
    ['blob', 'application/octet-stream'],
    ['report.txt.zip', 'text/plain'],
  ] as const) {
    const res = await upload(s, { name, data: Buffer.from('PK\x03\x04 whatever'), type })
    t.same(errorOf(res), { status: 415, code: 'unsupported_file_type' }, name)
    t.match(res.body.error.message, /\.txt, \.md, \.html, \.pdf or \.docx/)
  }
  t.same(expectStatus(await s.send('GET', `${KB}/documents`), 200, 'list'), [])
})

t.test('a corrupt or mislabelled file is a 422 unreadable_document, never a 500', async (t) => {
  const s = await setup(t)
  const cases: [string, Buffer, RegExp][] = [
    ['corrupt.pdf', fixture('corrupt.pdf'), /damaged/],
    ['fake.pdf', Buffer.from('just some text, no PDF header'), /not a PDF/],
    ['fake.docx', Buffer.from('not a zip at all'), /not a DOCX/],
    ['broken.docx', Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(64, 1)]), /damaged/],
    ['latin1.txt', Buffer.from('Caf\xe9 cr\xe8me', 'latin1'), /not UTF-8/],
    ['binary.txt', Buffer.from([0x61, 0x00, 0x62]), /binary/],
    ['empty.txt', Buffer.alloc(0), /empty/],
  ]
  for (const [name, data, msg] of cases) {
    const res = await upload(s, { name, data })
    t.equal(res.status, 422, name, { body: res.text })
    t.match(res.body?.detail, [{ type: 'unreadable_document', loc: ['body', 'file'], msg }], name)
  }
  const blank = await upload(s, { name: 'blank.html', data: Buffer.from('<html><body><img src="x.png"></body></html>') })
  t.match(blank.body?.detail, [{ type: 'empty_document', loc: ['body', 'file'] }], 'a file with no text in it')
  t.same(expectStatus(await s.send('GET', `${KB}/documents`), 200, 'list'), [], 'nothing was stored')
  t.notOk(
    s.a.logs.some((l) => l.includes('"level":50')),
    'no error was logged',
  )
})

t.test('the upload takes multipart only, and a file in the file field', async (t) => {
  const s = await setup(t)
  const json = await s.send('POST', `${KB}/documents/upload`, { body: { file: 'x' } })
  t.same(errorOf(json), { status: 415, code: 'unsupported_media_type' })
  t.match(json.body.error.message, /multipart\/form-data/)
  const noFile = multipart([{ name: 'title', value: 'Only a title' }])
  const r1 = await s.send('POST', `${KB}/documents/upload`, { raw: noFile.body, headers: { 'content-type': noFile.contentType } })
  t.match(r1.body?.detail, [{ loc: ['body', 'file'], msg: 'Field required' }])
  const asField = multipart([{ name: 'file', value: 'plain text field' }])
  const r2 = await s.send('POST', `${KB}/documents/upload`, { raw: asField.body, headers: { 'content-type': asField.contentType } })
  t.match(r2.body?.detail, [{ loc: ['body', 'file'], msg: 'Expected a file' }], 'a text field is not a file')
  const two = multipart([
    { name: 'file', value: 'a', filename: 'a.txt' },
    { name: 'other', value: 'b', filename: 'b.txt' },
  ])
  const r3 = await s.send('POST', `${KB}/documents/upload`, { raw: two.body, headers: { 'content-type': two.contentType } })
  t.same(errorOf(r3), { status: 400, code: 'bad_request' }, 'one file per upload')
  const broken = await s.send('POST', `${KB}/documents/upload`, {
    raw: Buffer.from('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhalf'),
    headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
  })
  t.same(errorOf(broken), { status: 400, code: 'bad_request' }, 'a truncated form')
  const noBoundary = await s.send('POST', `${KB}/documents/upload`, { raw: Buffer.from('x'), headers: { 'content-type': 'multipart/form-data' } })
  t.same(errorOf(noBoundary), { status: 400, code: 'bad_request' })
  t.same(expectStatus(await s.send('GET', `${KB}/documents`), 200, 'list'), [])
})
