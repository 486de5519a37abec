// Malformed RTP MUST come back as a typed error, never a throw (RFC 3550 §5.1, §5.3.1, §A.1's header checks).
import t from 'tap'
import { parseRtp, RtpPacket, type RtpParseErrorCode } from '../../../sip/rtp/index.js'

const bytes = (...values: number[]) => Uint8Array.from(values)
const HEADER = [0, 0x00, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]
const withFirst = (first: number, ...rest: number[]) => bytes(first, ...HEADER.slice(1), ...rest)
const errorOf = (wire: Uint8Array): RtpParseErrorCode | undefined => {
  const result = parseRtp(wire)
  return result.ok ? undefined : result.error
}

t.test('fewer than 12 octets MUST be too_short', async (t) => {
  for (let n = 0; n < 12; n++) t.equal(errorOf(withFirst(0x80).subarray(0, n)), 'too_short', `${n} octets`)
  t.equal(RtpPacket.deserialize(bytes(0x80)), undefined)
})

t.test('a version other than 2 MUST be refused', async (t) => {
  for (const first of [0x00, 0x40, 0xc0]) t.equal(errorOf(withFirst(first, 1, 2)), 'bad_version')
})

t.test('a CSRC count past the end MUST be refused', async (t) => {
  t.equal(errorOf(withFirst(0x81)), 'csrc_past_end')
  t.equal(errorOf(withFirst(0x8f, ...Array(56).fill(0))), 'csrc_past_end', '15 CSRCs need 60 octets')
  t.ok(parseRtp(withFirst(0x8f, ...Array(60).fill(0))).ok)
})

t.test('an extension header or length past the end MUST be refused', async (t) => {
  t.equal(errorOf(withFirst(0x90, 0xbe, 0xde)), 'extension_past_end', 'no room for the 4-octet extension header')
  t.equal(errorOf(withFirst(0x90, 0xbe, 0xde, 0x00, 0x02, 1, 2, 3, 4)), 'extension_past_end', '2 words announced, 1 present')
  t.equal(errorOf(withFirst(0x90, 0xbe, 0xde, 0xff, 0xff)), 'extension_past_end', 'the largest length')
  t.equal(errorOf(withFirst(0x91, 0, 0, 0, 1, 0xbe, 0xde, 0, 1)), 'extension_past_end', 'after a CSRC')
})

t.test('padding of zero or longer than the packet body MUST be refused', async (t) => {
  t.equal(errorOf(withFirst(0xa0, 1, 2, 0)), 'padding_zero')
  t.equal(errorOf(withFirst(0xa0, 1, 2, 4)), 'padding_past_end', '4 padding octets but 3 after the header')
  t.equal(errorOf(withFirst(0xa0, 1, 2, 255)), 'padding_past_end')
  t.equal(errorOf(withFirst(0xa1, 0, 0, 0, 9, 5)), 'padding_past_end', 'padding may not eat the CSRC list')
  t.equal(errorOf(withFirst(0xb0, 0, 0, 0, 1, 1, 2, 3, 4, 6)), 'padding_past_end', 'nor the extension')
  t.equal(errorOf(withFirst(0xa0)), 'padding_past_end', 'a padded packet with no octet after the header')
})

t.test('random datagrams never throw and always give a packet or a typed error (seeded, 20,000)', async (t) => {
  let seed = 0x2545f491
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / 0x1000000
  const codes = new Set<string>()
  let parsed = 0
  for (let i = 0; i < 20_000; i++) {
    const wire = new Uint8Array(Math.floor(random() * 80))
    for (let j = 0; j < wire.length; j++) wire[j] = Math.floor(random() * 256)
    if (wire.length > 0 && random() < 0.7) wire[0] = (wire[0]! & 0x3f) | 0x80
    const result = parseRtp(wire)
    if (result.ok) {
      parsed++
      const p = result.packet
      const end = p.payload.byteOffset + p.payload.length
      if (end > wire.byteOffset + wire.length || p.payload.byteOffset < 12) t.fail('payload outside the datagram')
    } else codes.add(result.error)
  }
  t.ok(parsed > 1000, `${parsed} parsed`)
  t.same([...codes].sort(), ['bad_version', 'csrc_past_end', 'extension_past_end', 'padding_past_end', 'padding_zero', 'too_short'])
})
