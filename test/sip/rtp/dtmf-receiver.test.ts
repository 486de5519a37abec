// Receiving key presses (RFC 4733 §2.5.2): exactly one press per event however its packets come.
import t from 'tap'
import { DtmfReceiver, type DtmfOutput, TelephoneEvent } from '../../../sip/rtp/index.js'

const packet = (timestamp: number, event: number, duration: number, end = false) => ({
  timestamp,
  payload: new TelephoneEvent({ event, end, volume: 10, duration }).serialize(),
})
const ends = (outputs: DtmfOutput[]) => outputs.filter((o) => o.kind === 'end').map((o) => (o.kind === 'end' ? [o.digit, o.durationMs, o.reason] : []))

/** A full press: updates every 20 ms, then three end packets. */
function press(timestamp: number, event: number, durationMs: number) {
  const list = []
  for (let ms = 20; ms < durationMs; ms += 20) list.push(packet(timestamp, event, ms * 8))
  for (let i = 0; i < 3; i++) list.push(packet(timestamp, event, durationMs * 8, true))
  return list
}

t.test('a press with three end packets MUST give exactly one digit, with its duration', async (t) => {
  const receiver = new DtmfReceiver()
  const out = press(8000, 1, 100).flatMap((p, i) => receiver.receive(p, i * 20))
  t.same(out, [
    { kind: 'start', digit: '1', timestamp: 8000 },
    { kind: 'end', digit: '1', timestamp: 8000, durationMs: 100, reason: 'end' },
  ])
})

t.test('retransmitted updates and end packets, in any order, MUST NOT add digits', async (t) => {
  const receiver = new DtmfReceiver()
  const packets = press(100, 11, 120)
  const shuffled = [packets[0]!, packets[1]!, packets[0]!, packets[5]!, packets[2]!, packets[6]!, packets[3]!, packets[7]!, packets[4]!]
  const out = shuffled.flatMap((p, i) => receiver.receive(p, i * 20))
  t.same(ends(out), [['#', 120, 'end']])
  t.equal(out.filter((o) => o.kind === 'start').length, 1)
})

t.test('a press whose start packets were lost MUST still count, from the first packet seen', async (t) => {
  const receiver = new DtmfReceiver()
  const out = press(500, 7, 100)
    .slice(3)
    .flatMap((p, i) => receiver.receive(p, i * 20))
  t.same(ends(out), [['7', 100, 'end']])
  const onlyEnd = new DtmfReceiver()
  t.same(ends(onlyEnd.receive(packet(900, 3, 640, true), 0)), [['3', 80, 'end']], 'a single end packet is a press')
})

t.test('the same key pressed twice MUST give two digits (new timestamp)', async (t) => {
  const receiver = new DtmfReceiver()
  const out = [...press(1000, 4, 100), ...press(3000, 4, 80)].flatMap((p, i) => receiver.receive(p, i * 20))
  t.same(ends(out), [
    ['4', 100, 'end'],
    ['4', 80, 'end'],
  ])
})

t.test('with all end packets lost, the next press MUST end the previous one', async (t) => {
  const receiver = new DtmfReceiver()
  const first = press(1000, 2, 100).slice(0, 4)
  const out = [...first, ...press(2000, 8, 60)].flatMap((p, i) => receiver.receive(p, i * 20))
  t.same(ends(out), [
    ['2', 80, 'new_event'],
    ['8', 60, 'end'],
  ])
})

t.test('with all end packets lost and no next press, the timeout MUST end it', async (t) => {
  const receiver = new DtmfReceiver({ timeoutMs: 500 })
  press(1000, 0, 100)
    .slice(0, 4)
    .forEach((p, i) => receiver.receive(p, i * 20))
  t.same(receiver.tick(500), [], '440 ms after the last packet: not yet')
  t.same(ends(receiver.tick(560)), [['0', 80, 'timeout']])
  t.same(receiver.tick(5000), [], 'only once')
  t.same(ends(receiver.receive(packet(1000, 0, 800, true), 5000)), [], 'a late end packet of that press adds nothing')
})

t.test('stragglers of an earlier press and non-DTMF events MUST NOT make digits', async (t) => {
  const receiver = new DtmfReceiver()
  press(5000, 6, 60).forEach((p, i) => receiver.receive(p, i * 20))
  t.same(receiver.receive(packet(1000, 9, 320), 200), [], 'an older timestamp')
  t.same(receiver.receive({ timestamp: 9000, payload: Uint8Array.of(1, 2) }, 220), [], 'a short payload')
  const flash = receiver.receive(packet(9000, 16, 800, true), 240)
  t.same(flash, [], 'event 16 (flash) is no digit')
})

t.test('timestamps MUST compare across the 32-bit wrap', async (t) => {
  const receiver = new DtmfReceiver()
  const out = [...press(0xffffff00, 1, 60), ...press(0x00000100, 2, 60)].flatMap((p, i) => receiver.receive(p, i * 20))
  t.same(ends(out), [
    ['1', 60, 'end'],
    ['2', 60, 'end'],
  ])
})
