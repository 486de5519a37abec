// Size limits: every one MUST be answered with a typed parse error, quickly, and never by an exception.
import t from 'tap'
import { DEFAULT_LIMITS, parseSipMessage, type SipParseErrorCode } from '../../../sip/index.js'

const HEAD = 'INVITE sip:bob@biloxi.com SIP/2.0\r\nTo: <sip:bob@biloxi.com>\r\nFrom: <sip:a@example.com>;tag=1\r\nCall-ID: lim@a\r\nCSeq: 1 INVITE\r\n'
const VIA = 'Via: SIP/2.0/UDP a.example.com;branch=z9hG4bK1\r\n'

function codeOf(text: string, limits = {}): { code?: SipParseErrorCode; ms: number } {
  const start = performance.now()
  const result = parseSipMessage(Buffer.from(text), { limits })
  return { code: result.ok ? undefined : result.error.code, ms: performance.now() - start }
}

t.test('DEFAULT_LIMITS are documented numbers: 64 KiB, 256 fields, 8 KiB lines, 71 Vias', async (t) => {
  t.same({ ...DEFAULT_LIMITS }, { maxMessageBytes: 65_536, maxHeaderCount: 256, maxLineBytes: 8_192, maxViaCount: 71 })
  t.ok(Object.isFrozen(DEFAULT_LIMITS))
  t.throws(() => parseSipMessage(Buffer.alloc(0), { limits: { maxViaCount: 0 } }), RangeError, 'a bad limit is a programming error, refused up front')
})

t.test('a message over maxMessageBytes MUST be refused before it is read', async (t) => {
  const { code, ms } = codeOf(`${HEAD}${VIA}\r\n${'x'.repeat(70_000)}`)
  t.equal(code, 'too_large')
  t.ok(ms < 50)
})

t.test('a header line over maxLineBytes MUST be refused, folded or not', async (t) => {
  t.equal(codeOf(`${HEAD}${VIA}Subject: ${'s'.repeat(9000)}\r\n\r\n`).code, 'header_too_long')
  const folded = `Subject: start\r\n${' more'.repeat(2000)}\r\n`
  t.equal(codeOf(`${HEAD}${VIA}${folded}\r\n`).code, 'header_too_long', 'each piece short, the field long')
  t.equal(codeOf(`INVITE sip:${'u'.repeat(9000)}@b.com SIP/2.0\r\n\r\n`).code, 'header_too_long', 'the start line too')
})

t.test('more fields than maxHeaderCount MUST be refused, counting list elements', async (t) => {
  t.equal(codeOf(`${HEAD}${VIA}${'X-A: 1\r\n'.repeat(300)}\r\n`).code, 'too_many_headers')
  t.equal(codeOf(`${HEAD}${VIA}Allow: ${Array(300).fill('INVITE').join(',')}\r\n\r\n`).code, 'too_many_headers')
  t.equal(codeOf(`${HEAD}${VIA}${'X-A: 1\r\n'.repeat(20)}\r\n`, { maxHeaderCount: 10 }).code, 'too_many_headers')
})

t.test('more Vias than maxViaCount MUST be refused, and still answered (§8.2.6.2 needs only the top one)', async (t) => {
  const vias = Array.from({ length: 72 }, (_, i) => `Via: SIP/2.0/UDP p${i}.example.com;branch=z9hG4bK${i}\r\n`).join('')
  const result = parseSipMessage(Buffer.from(`${HEAD}${vias}\r\n`))
  t.same(!result.ok && [result.error.code, result.error.reason], ['too_many_vias', 'Too many Via header field values'])
  t.ok(!result.ok && result.error.reply)
  t.ok(parseSipMessage(Buffer.from(`${HEAD}${vias.split('\r\n').slice(1).join('\r\n')}\r\n`)).ok, '71 is allowed')
})

t.test('deep nesting of quotes and brackets is read in one pass, within the limits', async (t) => {
  for (const filler of ['"'.repeat(8000), '<'.repeat(8000), '\\'.repeat(8000), '"\\'.repeat(4000), '<"'.repeat(4000), ';'.repeat(8000), ','.repeat(8000)]) {
    for (const field of ['Contact', 'From', 'Via', 'X-Unknown', 'Authorization']) {
      const { code, ms } = codeOf(`${HEAD}${VIA}${field}: ${filler}\r\n\r\n`)
      t.ok(code === undefined || code === 'bad_header' || code === 'header_too_long' || code === 'too_many_headers', `${field}: ${code}`)
      t.ok(ms < 100, `${field} with ${filler.slice(0, 2)}…: ${ms.toFixed(1)} ms`)
    }
  }
})
