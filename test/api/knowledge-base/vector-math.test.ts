import t from 'tap'
import { nearest, normalize, reciprocalRankFusion, toBlob } from '../../../api/knowledge-base/embeddings.js'

t.test('normalize scales to unit length and refuses a vector without a direction', async (t) => {
  t.same(Array.from(normalize(Float32Array.from([3, 4]))!), [0.6000000238418579, 0.800000011920929])
  t.equal(normalize(new Float32Array(3)), null)
  t.equal(normalize(Float32Array.from([1, Number.NaN])), null)
})

t.test('toBlob keeps the float32 bytes, even of a view into a larger buffer', async (t) => {
  const view = Float32Array.from([9, 1.5, -2, 9]).subarray(1, 3)
  const blob = toBlob(view)
  t.equal(blob.length, 8)
  t.same(Array.from(new Float32Array(blob.buffer, blob.byteOffset, 2)), [1.5, -2])
})

t.test('nearest: best first, at most n, nothing unrelated, the filter applied', async (t) => {
  const rows = [
    [1, 0],
    [0, 1],
    [0.6, 0.8],
    [-1, 0],
    [0.8, 0.6],
  ]
  const matrix = Float32Array.from(rows.flat())
  const q = Float32Array.from([1, 0])
  t.same(
    nearest(matrix, 2, q, 10).map((h) => h.row),
    [0, 4, 2],
    'orthogonal and opposite rows are left out',
  )
  t.same(
    nearest(matrix, 2, q, 2).map((h) => h.row),
    [0, 4],
  )
  t.same(
    nearest(matrix, 2, q, 10, (r) => r !== 0).map((h) => h.row),
    [4, 2],
  )
  t.same(nearest(new Float32Array(0), 2, q, 5), [])
})

t.test('reciprocal rank fusion sums 1/(60 + rank) over the lists', async (t) => {
  const fused = reciprocalRankFusion([
    ['a', 'b'],
    ['b', 'c'],
  ])
  t.equal(fused.get('a'), 1 / 61)
  t.equal(fused.get('b'), 1 / 62 + 1 / 61)
  t.equal(fused.get('c'), 1 / 62)
  t.same(
    [...fused].sort((x, y) => y[1] - x[1]).map(([k]) => k),
    ['b', 'a', 'c'],
  )
})
