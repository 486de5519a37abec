// Size and count bounds: each MUST be answered with a typed error, quickly, never an exception.
import t from 'tap'
import { DEFAULT_SDP_LIMITS, parseSdp, type SdpParseErrorCode } from '../../../sip/sdp/index.js'
import { crlf } from './fixtures.js'

const HEAD = ['v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 192.0.2.1', 't=0 0']

function codeOf(text: string | Buffer, limits = {}): { code?: SdpParseErrorCode; ms: number } {
  const start = performance.now()
  const result = parseSdp(text, { limits })
  return { code: result.ok ? undefined : result.error.code, ms: performance.now() - start }
}

t.test('DEFAULT_SDP_LIMITS are documented numbers: 16 KiB, 512 lines, 2 KiB a line, 16 media, 64 formats', async (t) => {
  t.same({ ...DEFAULT_SDP_LIMITS }, { maxBytes: 16_384, maxLines: 512, maxLineBytes: 2_048, maxMediaSections: 16, maxFormatsPerMedia: 64 })
  t.ok(Object.isFrozen(DEFAULT_SDP_LIMITS))
  t.throws(() => parseSdp('v=0', { limits: { maxLines: 0 } }), RangeError, 'a bad limit is a programming error, refused up front')
})

t.test('a description over maxBytes MUST be refused before it is read, as a string or a Buffer', async (t) => {
  const huge = crlf(...HEAD, `a=x:${'y'.repeat(20_000)}`)
  t.equal(codeOf(huge).code, 'too_large')
  t.equal(codeOf(Buffer.from(huge)).code, 'too_large')
  t.equal(codeOf('é'.repeat(9_000)).code, 'too_large', 'counted in UTF-8 bytes, not characters')
  t.ok(codeOf('x'.repeat(5_000_000)).ms < 50)
})

t.test('more lines than maxLines MUST be refused', async (t) => {
  t.equal(codeOf(crlf(...HEAD, ...Array(600).fill('a=x'))).code, 'too_many_lines')
  t.equal(codeOf(crlf(...HEAD, ...Array(20).fill('a=x')), { maxLines: 10 }).code, 'too_many_lines')
  t.equal(codeOf('\n'.repeat(10_000)).code, 'too_many_lines', 'blank lines count too')
})

t.test('a line over maxLineBytes MUST be refused', async (t) => {
  const result = parseSdp(crlf(...HEAD, `a=fmtp:96 ${'x'.repeat(3_000)}`))
  t.same(!result.ok && [result.error.code, result.error.line], ['line_too_long', 6])
})

t.test('more m= sections than maxMediaSections MUST be refused; exactly the limit is allowed', async (t) => {
  const media = (n: number) => Array.from({ length: n }, (_, i) => `m=audio ${4000 + 2 * i} RTP/AVP 0`)
  t.equal(codeOf(crlf(...HEAD, ...media(17))).code, 'too_many_media')
  t.equal(codeOf(crlf(...HEAD, ...media(16))).code, undefined)
})

t.test('more formats on an m= line than maxFormatsPerMedia MUST be refused; exactly the limit is allowed', async (t) => {
  const formats = (n: number) => Array.from({ length: n }, (_, i) => `${i}`).join(' ')
  t.equal(codeOf(crlf(...HEAD, `m=audio 4000 RTP/AVP ${formats(65)}`)).code, 'too_many_formats')
  t.equal(codeOf(crlf(...HEAD, `m=audio 4000 RTP/AVP ${formats(64)}`)).code, undefined)
})

t.test('pathological lines are read in linear time', async (t) => {
  for (const filler of [' '.repeat(2000), '/'.repeat(2000), ':'.repeat(2000), '0 '.repeat(1000), '-'.repeat(2000)]) {
    for (const type of ['o', 'c', 'b', 't', 'm', 'a=rtpmap:', 'a=fmtp:', 'a=rtcp:', 'a=ptime:']) {
      const line = type.length === 1 ? `${type}=${filler}` : `${type}${filler}`
      const { ms } = codeOf(crlf(...HEAD, 'm=audio 4000 RTP/AVP 0', line).slice(0, 16_000))
      t.ok(ms < 50, `${type} with ${JSON.stringify(filler.slice(0, 2))}…: ${ms.toFixed(1)} ms`)
    }
  }
})
