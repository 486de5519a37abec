import net, { type AddressInfo } from 'node:net'
import t from 'tap'
import { startOpenAiStandIn } from '../../../engine/pipeline/providers/stand-ins/index.js'
import { allowList } from '../../../core/index.js'
import { EmbeddingError, OpenAiEmbedder } from '../../../api/knowledge-base/embeddings.js'
import { ProviderConnections } from '../../../engine/pipeline/providers/connections.js'

// An organization's embeddings base URL connects through the guarded pool (issue #18): a name
// rebound to loopback is refused when the connection opens, not retried, and nothing is sent.

const KEY = 'sk-embed-guard-key-000111'

t.test('embeddings to a name that now resolves to loopback are refused at connect time, without a retry or a connection', async (t) => {
  let connections = 0
  const listener = net.createServer((s) => {
    connections++
    s.destroy()
  })
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => listener.close(() => r())))
  let lookups = 0
  const guarded = new ProviderConnections({
    guard: { allow: allowList([]), resolve: async () => (lookups++, [{ address: '127.0.0.1', family: 4 }]) },
  })
  t.teardown(() => guarded.close())
  const embedder = new OpenAiEmbedder({
    apiKey: KEY,
    baseURL: `https://emb.rebind.test:${(listener.address() as AddressInfo).port}/v1`,
    model: 'text-embedding-3-small',
    dimensions: null,
    timeoutMs: 2000,
    connections: guarded,
  })
  const err = await embedder.embed(['a query'], 'index').then(
    () => null,
    (e: unknown) => e,
  )
  t.ok(err instanceof EmbeddingError)
  t.match(err, { unavailable: true, retryable: false, message: /refused by the outbound guard.*loopback address \(127\.0\.0\.1\)/ })
  t.notMatch((err as Error).message, KEY)
  t.equal(lookups, 1, 'one attempt: indexing retries twice on a retryable failure, and this one is not')
  t.equal(connections, 0, 'nothing reached the loopback listener')
})

t.test('within the operator range the guarded embedder reaches the checked address', async (t) => {
  const server = await startOpenAiStandIn({ apiKey: KEY, firstTokenLatencyMs: 0, tokensPerSecond: 0 })
  t.teardown(() => server.close())
  const guarded = new ProviderConnections({ guard: { allow: allowList(['127.0.0.0/8']), resolve: async () => [{ address: '127.0.0.1', family: 4 }] } })
  t.teardown(() => guarded.close())
  const embedder = new OpenAiEmbedder({
    apiKey: KEY,
    baseURL: `http://emb.allowed.test:${new URL(server.url).port}/v1`,
    model: 'text-embedding-3-small',
    dimensions: null,
    timeoutMs: 2000,
    connections: guarded,
  })
  const [vector] = await embedder.embed(['a query'], 'query')
  t.ok(vector && vector.length > 0, 'a vector came back')
})
