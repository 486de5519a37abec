// Compound RTCP (RFC 3550 §6.1, §6.4-6.6) read from bytes written out by hand; malformed packets
// MUST be refused as a whole with a typed error (§A.2), never by a throw.
import t from 'tap'
import { parseRtcp, type RtcpParseErrorCode, serializeRtcp } from '../../../sip/rtp/index.js'

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0))
/** Big-endian 32-bit words to bytes: the packets below are written one word per entry, as the RFC draws them. */
const words = (...values: number[]) => values.flatMap((w) => [w >>> 24, (w >>> 16) & 0xff, (w >>> 8) & 0xff, w & 0xff])
const SR = words(
  0x81c8000c, // V=2 RC=1, PT=200, length 12 words
  0x11223344, // SSRC of sender
  0xe1234567, // NTP timestamp, seconds
  0x80000000, // NTP timestamp, fraction
  0x00001f40, // RTP timestamp 8000
  0x00000032, // 50 packets
  0x00001f40, // 8000 octets
  0x55667788, // report block: SSRC
  0x40000005, // fraction 64/256, cumulative 5
  0x0001ffff, // extended highest sequence
  0x0000000a, // jitter 10
  0x45678000, // LSR
  0x00010000, // DLSR: 1 s
)
const SDES = [0x81, 0xca, 0x00, 0x03, 0x11, 0x22, 0x33, 0x44, 0x01, 0x05, ...ascii('alice'), 0x00]
const BYE = [0x81, 0xcb, 0x00, 0x02, 0x11, 0x22, 0x33, 0x44, 0x03, ...ascii('bye')]
const APP = [0x80, 0xcc, 0x00, 0x02, 0x11, 0x22, 0x33, 0x44, ...ascii('ABCD')]
const RR = [0x80, 0xc9, 0x00, 0x01, 0x99, 0x88, 0x77, 0x66]

function errorOf(values: number[], options = {}): RtcpParseErrorCode | undefined {
  const result = parseRtcp(Uint8Array.from(values), options)
  return result.ok ? undefined : result.error
}

t.test('SR + SDES + APP + BYE: every field read, APP skipped by its length', async (t) => {
  const result = parseRtcp(Uint8Array.from([...SR, ...SDES, ...APP, ...BYE]))
  t.ok(result.ok)
  if (!result.ok) return
  t.same(result.packets, [
    {
      type: 'sr',
      ssrc: 0x11223344,
      sender: { ntpSeconds: 0xe1234567, ntpFraction: 0x80000000, rtpTimestamp: 8000, packetCount: 50, octetCount: 8000 },
      reports: [
        { ssrc: 0x55667788, fractionLost: 64, cumulativeLost: 5, extendedHighestSequence: 0x1ffff, jitter: 10, lastSr: 0x45678000, delaySinceLastSr: 0x10000 },
      ],
    },
    { type: 'sdes', chunks: [{ ssrc: 0x11223344, items: [{ type: 1, text: 'alice' }] }] },
    { type: 'bye', ssrcs: [0x11223344], reason: 'bye' },
  ])
})

t.test('serializeRtcp MUST write the same bytes (lengths in words minus one, SDES null-terminated and padded)', async (t) => {
  const result = parseRtcp(Uint8Array.from([...SR, ...SDES, ...BYE]))
  t.same(result.ok && serializeRtcp(result.packets), Uint8Array.from([...SR, ...SDES, ...BYE]))
  t.same(serializeRtcp([{ type: 'rr', ssrc: 0x99887766, reports: [] }]), Uint8Array.from(RR))
  t.same(serializeRtcp([{ type: 'bye', ssrcs: [1, 2] }]), Uint8Array.from([0x82, 0xcb, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2]))
  // An SDES item ending on a word boundary still needs a null octet: a whole word of zeros.
  const four = serializeRtcp([{ type: 'sdes', chunks: [{ ssrc: 7, items: [{ type: 1, text: 'ab' }] }] }])
  t.same(four, Uint8Array.from([0x81, 0xca, 0, 3, 0, 0, 0, 7, 1, 2, 0x61, 0x62, 0, 0, 0, 0]))
})

t.test('a negative cumulative lost (duplicates) MUST be read as signed 24 bits', async (t) => {
  const values = [...SR]
  values.splice(32, 4, 0x00, 0xff, 0xff, 0xff)
  const result = parseRtcp(Uint8Array.from(values))
  t.equal(result.ok && result.packets[0]!.type === 'sr' && result.packets[0]!.reports[0]!.cumulativeLost, -1)
})

t.test('padding on the last packet MUST be removed; on any other it MUST be refused (§A.2)', async (t) => {
  const paddedBye = [0xa1, 0xcb, 0x00, 0x02, 0x11, 0x22, 0x33, 0x44, 0x00, 0x00, 0x00, 0x04]
  const result = parseRtcp(Uint8Array.from([...RR, ...paddedBye]))
  t.same(result.ok && result.packets[1], { type: 'bye', ssrcs: [0x11223344] })
  t.equal(errorOf([...RR.map((b, i) => (i === 0 ? b | 0x20 : b)), ...BYE]), 'padding_not_last')
  t.equal(errorOf([...RR, 0xa1, 0xcb, 0x00, 0x01, 0x11, 0x22, 0x33, 0x00]), 'bad_padding', 'zero padding count')
  t.equal(errorOf([...RR, 0xa1, 0xcb, 0x00, 0x01, 0x11, 0x22, 0x33, 0x09]), 'bad_padding', 'padding past the packet')
})

t.test('the first packet MUST be SR or RR unless reduced-size RTCP is allowed (RFC 5506)', async (t) => {
  t.equal(errorOf([...SDES, ...RR]), 'first_not_report')
  t.equal(errorOf([...APP]), 'first_not_report')
  t.ok(parseRtcp(Uint8Array.from(SDES), { reducedSize: true }).ok)
})

t.test('a bad version anywhere MUST refuse the whole compound packet', async (t) => {
  t.equal(errorOf([0x41, ...SR.slice(1)]), 'bad_version')
  t.equal(errorOf([...SR, 0x41, ...SDES.slice(1)]), 'bad_version')
})

t.test('lengths MUST add up to the compound packet, and counts fit in their packet', async (t) => {
  t.equal(errorOf([...RR, ...SDES.slice(0, 12)]), 'bad_length', 'SDES cut short')
  t.equal(errorOf([...RR, 0x81]), 'bad_length', 'not a whole number of words')
  t.equal(errorOf([0x80, 0xc9, 0xff, 0xff, 1, 2, 3, 4]), 'bad_length', 'the largest length field')
  t.equal(errorOf([0x81, 0xc9, 0x00, 0x01, 1, 2, 3, 4]), 'count_past_end', 'RC=1 with no report block')
  t.equal(errorOf([0x9f, 0xc8, 0x00, 0x06, ...Array(24).fill(0)]), 'count_past_end', 'SR with RC=31')
  t.equal(errorOf([...RR, 0x83, 0xcb, 0x00, 0x01, 1, 2, 3, 4]), 'count_past_end', 'BYE with SC=3 and one SSRC')
  t.equal(errorOf([...RR, 0x81, 0xcb, 0x00, 0x02, 1, 2, 3, 4, 9, 0x61, 0x62, 0x63]), 'count_past_end', 'BYE reason longer than its packet')
  t.equal(errorOf([...RR, 0x81, 0xca, 0x00, 0x02, 1, 2, 3, 4, 1, 9, 0x61, 0x62]), 'bad_sdes', 'SDES item past the end')
  t.equal(errorOf([...RR, 0x82, 0xca, 0x00, 0x02, 1, 2, 3, 4, 1, 1, 0x61, 0]), 'bad_sdes', 'SDES with SC=2 and one chunk')
  t.equal(errorOf([...RR, 0x81, 0xca, 0x00, 0x01, 1, 2, 3, 4]), 'bad_sdes', 'SDES chunk with no null octet')
  t.equal(errorOf([]), 'too_short')
})

t.test('random compound packets never throw (seeded, 20,000)', async (t) => {
  let seed = 99
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / 0x1000000
  const pieces = [SR, SDES, BYE, APP, RR]
  let parsed = 0
  for (let i = 0; i < 20_000; i++) {
    const values = [...pieces[Math.floor(random() * 2)]!]
    for (let k = Math.floor(random() * 3); k > 0; k--) values.push(...pieces[Math.floor(random() * pieces.length)]!)
    for (let k = Math.floor(random() * 4); k > 0; k--) values[Math.floor(random() * values.length)] = Math.floor(random() * 256)
    const result = parseRtcp(Uint8Array.from(values))
    if (result.ok) parsed++
  }
  t.ok(parsed > 1000, `${parsed} parsed`)
})
