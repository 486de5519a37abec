/** Drains a provider's iterator into one clip, recording when the first chunk came. */
export async function collect(it: AsyncIterable<Int16Array>): Promise<{ all: Int16Array; chunks: Int16Array[]; firstMs: number; totalMs: number }> {
  const t0 = performance.now()
  let firstMs = -1
  const chunks: Int16Array[] = []
  for await (const c of it) {
    if (firstMs < 0) firstMs = performance.now() - t0
    chunks.push(c)
  }
  const all = new Int16Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of chunks) {
    all.set(c, at)
    at += c.length
  }
  return { all, chunks, firstMs, totalMs: performance.now() - t0 }
}

export const live = (): AbortSignal => new AbortController().signal
