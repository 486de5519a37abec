// RTP data packets (RFC 3550 §5.1): the byte layout of the fixed header, CSRCs, extension and padding, written out by hand.
import t from 'tap'
import { parseRtp, RtpPacket, writeRtpHeader } from '../../../sip/rtp/index.js'

const bytes = (...values: number[]) => Uint8Array.from(values)

t.test('the fixed header MUST be V=2 P X CC | M PT | sequence | timestamp | SSRC, in network order', async (t) => {
  const packet = new RtpPacket({ marker: true, payloadType: 0, sequenceNumber: 0x1234, timestamp: 0xdeadbeef, ssrc: 0x01020304, payload: bytes(0xff, 0x7f) })
  const wire = bytes(0x80, 0x80, 0x12, 0x34, 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04, 0xff, 0x7f)
  t.same(packet.serialize(), wire)
  const back = RtpPacket.deserialize(wire)!
  t.same(
    [back.marker, back.payloadType, back.sequenceNumber, back.timestamp, back.ssrc, [...back.payload]],
    [true, 0, 0x1234, 0xdeadbeef, 0x01020304, [0xff, 0x7f]],
  )
  t.same([back.csrcs, back.extension, back.paddingBytes], [[], undefined, 0])
})

t.test('payload type 8 without marker, sequence 65535, timestamp 0', async (t) => {
  const wire = bytes(0x80, 0x08, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff)
  const packet = RtpPacket.deserialize(wire)!
  t.same([packet.marker, packet.payloadType, packet.sequenceNumber, packet.timestamp, packet.ssrc, packet.payload.length], [false, 8, 65535, 0, 0xffffffff, 0])
  t.same(packet.serialize(), wire, 'an empty payload round-trips')
})

t.test('the CSRC list MUST follow the fixed header, CC entries of 32 bits (§5.1)', async (t) => {
  const wire = bytes(0x82, 0x00, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xaa, 0xbb, 0xcc, 0xdd, 0x11, 0x22, 0x33, 0x44, 0x55)
  const packet = RtpPacket.deserialize(wire)!
  t.same(packet.csrcs, [0xaabbccdd, 0x11223344])
  t.same([...packet.payload], [0x55])
  t.same(packet.serialize(), wire)
})

t.test('a header extension (§5.3.1) MUST be skipped by its length in words, and kept', async (t) => {
  const wire = bytes(0x90, 0x00, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xbe, 0xde, 0x00, 0x01, 0x10, 0x20, 0x30, 0x40, 0x99)
  const packet = RtpPacket.deserialize(wire)!
  t.equal(packet.extension?.profile, 0xbede)
  t.same([...packet.extension!.data], [0x10, 0x20, 0x30, 0x40])
  t.same([...packet.payload], [0x99])
  t.same(packet.serialize(), wire)
})

t.test('padding (§5.1 P bit) MUST be removed from the payload using the count in the last octet', async (t) => {
  const wire = bytes(0xa0, 0x00, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0x01, 0x02, 0, 0, 3)
  const packet = RtpPacket.deserialize(wire)!
  t.same([...packet.payload], [0x01, 0x02])
  t.equal(packet.paddingBytes, 3)
  t.same(packet.serialize(), wire)
  const onlyPadding = RtpPacket.deserialize(bytes(0xa0, 0x00, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4))!
  t.equal(onlyPadding.payload.length, 0, 'padding may take the whole rest of the packet')
})

t.test('the payload is a view into the datagram, not a copy (documented: the adapter reuses no buffers)', async (t) => {
  const wire = bytes(0x80, 0x00, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 7, 8)
  const packet = RtpPacket.deserialize(wire)!
  t.equal(packet.payload.buffer, wire.buffer)
  t.equal(packet.payload.byteOffset, 12)
})

t.test('a view with an offset into a larger buffer parses the same', async (t) => {
  const big = new Uint8Array(64)
  big.set(bytes(0x80, 0x00, 0, 9, 0, 0, 0, 2, 0, 0, 0, 3, 7, 8), 20)
  const packet = RtpPacket.deserialize(big.subarray(20, 34))!
  t.same([packet.sequenceNumber, [...packet.payload]], [9, [7, 8]])
})

t.test('writeRtpHeader writes the same 12 octets as serialize(), into a caller buffer at an offset', async (t) => {
  const fields = { marker: false, payloadType: 8, sequenceNumber: 65535, timestamp: 4294967295, ssrc: 0x80000001 }
  const out = new Uint8Array(40).fill(0xee)
  t.equal(writeRtpHeader(out, fields, 4), 12)
  t.same(out.subarray(4, 16), new RtpPacket({ ...fields, payload: new Uint8Array(0) }).serialize())
  t.equal(out[3], 0xee, 'nothing before the offset is touched')
  t.equal(out[16], 0xee, 'nothing after the header is touched')
  t.throws(() => writeRtpHeader(new Uint8Array(11), fields), RangeError)
})

t.test('serializeInto writes into a caller buffer and says how many octets', async (t) => {
  const packet = new RtpPacket({ marker: false, payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3, payload: new Uint8Array(160).fill(0xd5), csrcs: [9] })
  const out = new Uint8Array(1500)
  t.equal(packet.serializeInto(out, 100), 12 + 4 + 160)
  t.same(out.subarray(100, 100 + 176), packet.serialize())
  t.throws(() => packet.serializeInto(new Uint8Array(100)), RangeError)
})

t.test('the constructor MUST refuse values that do not fit their fields', async (t) => {
  const base = { marker: false, payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0, payload: new Uint8Array(0) }
  t.throws(() => new RtpPacket({ ...base, payloadType: 128 }), RangeError)
  t.throws(() => new RtpPacket({ ...base, sequenceNumber: 65536 }), RangeError)
  t.throws(() => new RtpPacket({ ...base, csrcs: Array(16).fill(1) }), RangeError)
  t.throws(() => new RtpPacket({ ...base, paddingBytes: 256 }), RangeError)
  t.throws(() => new RtpPacket({ ...base, extension: { profile: 1, data: new Uint8Array(3) } }), RangeError)
  t.ok(parseRtp(new RtpPacket({ ...base, csrcs: Array(15).fill(7) }).serialize()).ok, '15 CSRCs are allowed')
})
