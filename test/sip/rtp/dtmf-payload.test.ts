// The telephone-event payload (RFC 4733 §2.3): event | E R volume | duration, written out by hand.
import t from 'tap'
import { DTMF_DIGITS, TelephoneEvent } from '../../../sip/rtp/index.js'

t.test('digit 5, end, volume 10, duration 800 MUST be 05 8A 03 20', async (t) => {
  const event = new TelephoneEvent({ event: 5, end: true, volume: 10, duration: 800 })
  t.same([...event.serialize()], [0x05, 0x8a, 0x03, 0x20])
  const back = TelephoneEvent.deserialize(Uint8Array.of(0x05, 0x8a, 0x03, 0x20))!
  t.same([back.event, back.end, back.volume, back.duration, back.digit], [5, true, 10, 800, '5'])
})

t.test('events 0-15 MUST map to 0-9 * # A B C D (§3.2); others are no digit', async (t) => {
  t.equal(DTMF_DIGITS, '0123456789*#ABCD')
  t.same(
    [10, 11, 12, 15].map((e) => new TelephoneEvent({ event: e, end: false, volume: 0, duration: 0 }).digit),
    ['*', '#', 'A', 'D'],
  )
  t.equal(new TelephoneEvent({ event: 16, end: false, volume: 0, duration: 0 }).digit, undefined, '16 is flash')
  t.equal(TelephoneEvent.eventOf('#'), 11)
})

t.test('the R bit MUST be sent as zero and ignored on receipt (§2.3.3)', async (t) => {
  const back = TelephoneEvent.deserialize(Uint8Array.of(0x01, 0x40 | 0x3f, 0xff, 0xff))!
  t.same([back.end, back.volume, back.duration], [false, 63, 65535])
  t.equal(back.serialize()[1], 0x3f)
})

t.test('a payload under 4 octets MUST be refused, and bad fields never constructed', async (t) => {
  t.equal(TelephoneEvent.deserialize(Uint8Array.of(1, 2, 3)), undefined)
  t.ok(TelephoneEvent.deserialize(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8)), 'extra events after the first are allowed')
  t.throws(() => new TelephoneEvent({ event: 1, end: false, volume: 64, duration: 0 }), RangeError)
  t.throws(() => new TelephoneEvent({ event: 1, end: false, volume: 0, duration: 65536 }), RangeError)
  t.throws(() => new TelephoneEvent({ event: 256, end: false, volume: 0, duration: 0 }), RangeError)
})
