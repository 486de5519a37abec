import t from 'tap'
import { describeCensus, takeCensus } from '../../bench/lib/buffer-census.js'

t.test('the census counts new off-heap arrays by call site, and only those', async (t) => {
  const scope: Record<string, unknown> = {
    ...Object.fromEntries(
      ['ArrayBuffer', 'Int8Array', 'Uint8Array', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array'].map((n) => [
        n,
        (globalThis as Record<string, unknown>)[n],
      ]),
    ),
  }
  const census = takeCensus(scope, () => 0)
  t.teardown(() => census.stop())
  const I16 = scope.Int16Array as Int16ArrayConstructor
  const made = new I16(1000)
  t.equal(census.bytes, 2000, 'a new array of 2000 bytes')
  new I16(32)
  t.equal(census.arrays, 1, 'one of 64 bytes lives on the heap and is not counted')
  new I16(made.buffer, 0, 500)
  t.equal(census.arrays, 1, 'a view of an existing buffer is not counted')
  made.slice(0, 100)
  t.equal(census.bytes, 2200, "slice() makes a new array through the prototype's constructor, and is counted")
  ;new (scope.ArrayBuffer as ArrayBufferConstructor)(4096)
  t.equal(census.bytes, 6296)
  const report = describeCensus(census, 2)
  t.match(report, /^after 2 s: 0\.0 MB in 3 new arrays \(0\.00 MB\/s\)/)
  t.match(report, /Int16Array at .*buffer-census\.test\.ts/, 'sites name the allocating file')
  census.stop()
  t.equal(scope.Int16Array, Int16Array, 'stop() puts the constructors back')
  t.equal(Int16Array.prototype.constructor, Int16Array)
  new Int16Array(1000).slice()
  t.equal(census.arrays, 3, 'nothing is counted after stop()')
})
