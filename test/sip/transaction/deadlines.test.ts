// The wake-up heap the layer files transactions in.
import t from 'tap'
import { Deadlines } from '../../../sip/transaction/deadlines.js'

t.test('entries MUST come out earliest first, however they were added', async (t) => {
  let seed = 42
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const heap = new Deadlines<number>()
  const added: number[] = []
  for (let i = 0; i < 2000; i++) {
    const at = Math.floor(random() * 10_000)
    added.push(at)
    heap.add(at, i)
  }
  t.equal(heap.next, Math.min(...added))
  const first = heap.takeDue(5_000).map((e) => e.at)
  const rest = heap.takeDue(Number.POSITIVE_INFINITY).map((e) => e.at)
  const sorted = [...added].sort((a, b) => a - b)
  t.same([...first, ...rest], sorted)
  t.ok(first.every((at) => at <= 5_000) && rest.every((at) => at > 5_000))
  t.equal(heap.size, 0)
  t.equal(heap.next, undefined)
})
