// The localization helpers (spec "Localization helpers", issue 23 item 1): all GET, authenticated
// (agents:read), 200 with string-keyed objects; bad or unsupported input 422 detail[].
import t from 'tap'
import { startTestApp, type TestApp } from '../../helpers/app.js'
import { addMember, createKey, newOwner } from '../../helpers/tenancy-fixtures.js'

const BASE = '/api/v1/localization'
const a: TestApp = await startTestApp()
t.teardown(() => a.close())
const owner = await newOwner(a)

const get = (path: string, query: Record<string, string> = {}, auth: { token?: string; apiKey?: string } = { token: owner.token }) =>
  a.request('GET', `${BASE}/${path}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`, auth)

t.test('locales lists en and tr', async (t) => {
  const r = await get('locales')
  t.equal(r.status, 200)
  t.same(r.body, ['en', 'tr'])
})

t.test('spell-number: words and ordinal, locale en by default, tags read by their language', async (t) => {
  t.same((await get('spell-number', { value: '1250' })).body, {
    value: '1250',
    locale: 'en',
    text: 'one thousand two hundred fifty',
    ordinal: 'one thousand two hundred fiftieth',
  })
  t.same((await get('spell-number', { value: '1000', locale: 'tr' })).body, { value: '1000', locale: 'tr', text: 'bin', ordinal: 'bininci' })
  t.same((await get('spell-number', { value: '21', locale: 'TR-tr' })).body.ordinal, 'yirmi birinci')
  const big = await get('spell-number', { value: '-1000000000000000', locale: 'tr' })
  t.same(big.body, { value: '-1000000000000000', locale: 'tr', text: 'eksi bir katrilyon' }, 'no ordinal for a negative number')
  t.equal((await get('spell-number', { value: '9007199254740991' })).status, 200, '2^53 − 1 is the largest accepted')
})

t.test('spell-currency: code TRY by default, rounded to the minor unit', async (t) => {
  t.same((await get('spell-currency', { amount: '1250.5', locale: 'tr' })).body, {
    amount: '1250.5',
    rounded: '1250.50',
    code: 'TRY',
    locale: 'tr',
    text: 'bin iki yüz elli lira elli kuruş',
  })
  t.equal((await get('spell-currency', { amount: '1.005', code: 'usd' })).body.text, 'one dollar and one cent', 'lower-case code, decimal rounding')
  t.equal((await get('spell-currency', { amount: '3.2', code: 'GBP' })).body.text, 'three pounds and twenty pence')
  t.equal((await get('spell-currency', { amount: '10', code: 'EUR', locale: 'tr' })).body.text, 'on avro')
})

t.test('spell-date: month names in the locale order; a day the month lacks is 422', async (t) => {
  t.same((await get('spell-date', { year: '2026', month: '11', day: '27', locale: 'tr' })).body, {
    date: '2026-11-27',
    locale: 'tr',
    text: 'yirmi yedi Kasım iki bin yirmi altı',
    written: '27 Kasım 2026',
    weekday: 'Cuma',
  })
  t.equal((await get('spell-date', { year: '2026', month: '11', day: '27' })).body.text, 'November twenty-seventh, twenty twenty-six')
  const feb = await get('spell-date', { year: '2025', month: '2', day: '29' })
  t.equal(feb.status, 422)
  t.match(feb.body.detail, [{ type: 'value_error', loc: ['query', 'day'] }])
})

t.test('normalize rewrites the text as the engine speaks it', async (t) => {
  t.same((await get('normalize', { text: 'Toplam 1.250,50 TL, saat 14:30.', locale: 'tr' })).body, {
    locale: 'tr',
    normalized: 'Toplam bin iki yüz elli lira elli kuruş, saat on dört otuz.',
  })
  t.equal((await get('normalize', { text: 'It is $5 at 2:30 pm' })).body.normalized, 'It is five dollars at two thirty PM')
  t.same((await get('normalize', { text: '' })).body, { locale: 'en', normalized: '' }, 'empty text is empty')
})

t.test('format-phone: E.164, national, international, type and validity as strings', async (t) => {
  t.same((await get('format-phone', { phone: '0532 123 45 67', locale: 'tr' })).body, {
    phone: '0532 123 45 67',
    locale: 'tr',
    e164: '+905321234567',
    national: '0532 123 45 67',
    international: '+90 532 123 45 67',
    country: 'TR',
    type: 'mobile',
    valid: 'true',
    spoken: 'sıfır beş yüz otuz iki, yüz yirmi üç, kırk beş, altmış yedi',
  })
  t.match((await get('format-phone', { phone: '+1 (212) 555-0123' })).body, { e164: '+12125550123', country: 'US', valid: 'true' })
  t.match((await get('format-phone', { phone: '0532 12', locale: 'tr' })).body, { valid: 'false' }, 'parses but cannot exist')
  const none = await get('format-phone', { phone: 'call me' })
  t.equal(none.status, 422)
  t.match(none.body.detail, [{ type: 'value_error', loc: ['query', 'phone'] }])
})

t.test('validate-national-id: object of booleans', async (t) => {
  t.same((await get('validate-national-id', { value: '10000000146' })).body, { valid: true, well_formed: true })
  t.same((await get('validate-national-id', { value: '10000000147' })).body, { valid: false, well_formed: true })
  t.same((await get('validate-national-id', { value: '01234567890' })).body, { valid: false, well_formed: false })
})

t.test('missing, malformed and out-of-range parameters and unsupported locales are 422 detail[]', async (t) => {
  const cases: [string, Record<string, string>, string, string][] = [
    ['spell-number', {}, 'value', 'missing'],
    ['spell-number', { value: 'abc' }, 'value', 'int_parsing'],
    ['spell-number', { value: '1.5' }, 'value', 'int_parsing'],
    ['spell-number', { value: '1e3' }, 'value', 'int_parsing'],
    ['spell-number', { value: '' }, 'value', 'int_parsing'],
    ['spell-number', { value: '9007199254740992' }, 'value', 'less_than_equal'],
    ['spell-number', { value: '5', locale: 'de' }, 'locale', 'enum'],
    ['spell-number', { value: '5', locale: 'x'.repeat(36) }, 'locale', 'string_too_long'],
    ['spell-currency', {}, 'amount', 'missing'],
    ['spell-currency', { amount: '1,5' }, 'amount', 'float_parsing'],
    ['spell-currency', { amount: 'NaN' }, 'amount', 'float_parsing'],
    ['spell-currency', { amount: '1e16' }, 'amount', 'float_parsing'],
    ['spell-currency', { amount: '1000000000000001' }, 'amount', 'less_than_equal'],
    ['spell-currency', { amount: '5', code: 'XYZ' }, 'code', 'enum'],
    ['spell-currency', { amount: '5', code: 'TRYX' }, 'code', 'string_too_long'],
    ['spell-date', { month: '1', day: '1' }, 'year', 'missing'],
    ['spell-date', { year: '2025', month: '13', day: '1' }, 'month', 'less_than_equal'],
    ['spell-date', { year: '2025', month: '1', day: '0' }, 'day', 'greater_than_equal'],
    ['spell-date', { year: '10000', month: '1', day: '1' }, 'year', 'less_than_equal'],
    ['spell-date', { year: '2025', month: '4', day: '31' }, 'day', 'value_error'],
    ['normalize', {}, 'text', 'missing'],
    ['normalize', { text: 'x'.repeat(5001) }, 'text', 'string_too_long'],
    ['normalize', { text: 'hi', locale: 'fr-FR' }, 'locale', 'enum'],
    ['format-phone', {}, 'phone', 'missing'],
    ['format-phone', { phone: '' }, 'phone', 'string_too_short'],
    ['format-phone', { phone: '1'.repeat(65) }, 'phone', 'string_too_long'],
    ['validate-national-id', {}, 'value', 'missing'],
    ['validate-national-id', { value: '1'.repeat(65) }, 'value', 'string_too_long'],
  ]
  for (const [path, query, field, type] of cases) {
    const r = await get(path, query)
    t.equal(r.status, 422, `${path} ${JSON.stringify(query).slice(0, 60)}`)
    t.match(r.body.detail, [{ loc: ['query', field], type }], `${path}: ${field} ${type}`)
  }
})

t.test('every helper needs authentication and agents:read', async (t) => {
  const paths: [string, Record<string, string>][] = [
    ['locales', {}],
    ['spell-number', { value: '1' }],
    ['spell-currency', { amount: '1' }],
    ['spell-date', { year: '2025', month: '1', day: '1' }],
    ['normalize', { text: '1' }],
    ['format-phone', { phone: '+12125550123' }],
    ['validate-national-id', { value: '10000000146' }],
  ]
  const reader = await createKey(a, owner, ['workflow:read'])
  const other = await createKey(a, owner, ['knowledge_base:read'])
  const viewer = await addMember(a, owner, 4)
  for (const [path, query] of paths) {
    const anonymous = await get(path, query, {})
    t.equal(anonymous.status, 401, `${path} anonymous`)
    t.equal(anonymous.body.error.code, 'authentication_required')
    t.equal((await get(path, query, { apiKey: reader.key })).status, 200, `${path} with workflow:read`)
    const refused = await get(path, query, { apiKey: other.key })
    t.equal(refused.status, 403, `${path} without agents:read`)
    t.equal(refused.body.error.code, 'permission_denied')
    t.equal((await get(path, query, { token: viewer.token })).status, 200, `${path} as a viewer`)
  }
})

t.test('the OpenAPI document describes the query parameters and string-keyed responses', async (t) => {
  const doc = a.app.openapi() as { paths: Record<string, { get: { parameters: { name: string; required?: boolean; schema: { type?: string } }[] } }> }
  const number = doc.paths[`${BASE}/spell-number`]!.get
  t.match(
    number.parameters.find((p) => p.name === 'value'),
    { required: true, schema: { type: 'integer' } },
  )
  t.match(
    number.parameters.find((p) => p.name === 'locale'),
    { schema: { type: 'string', default: 'en' } },
  )
  const currency = doc.paths[`${BASE}/spell-currency`]!.get
  t.match(
    currency.parameters.find((p) => p.name === 'code'),
    { schema: { default: 'TRY' } },
  )
  t.match(
    currency.parameters.find((p) => p.name === 'amount'),
    { required: true, schema: { type: 'number' } },
  )
  for (const p of ['locales', 'spell-number', 'spell-currency', 'spell-date', 'normalize', 'format-phone', 'validate-national-id'])
    t.ok(doc.paths[`${BASE}/${p}`]?.get, p)
})
