import t, { type Test } from 'tap'
import http from 'node:http'
import type net from 'node:net'
import { PassThrough, Writable } from 'node:stream'
import Koa from 'koa'
import { createLogger } from '../../core/index.js'
import { listen, type RunningServer } from '../../api/index.js'

interface Reply {
  status: number
  connection: string | undefined
  body: string
}

/** What the client side of one TCP connection saw after the server let go of it. */
interface SocketEnding {
  fin: boolean
  error: string | null
}

function watch(socket: net.Socket): Promise<SocketEnding> {
  // The agent unrefs a socket it pools, so with the server gone nothing would keep the event loop
  // alive long enough to read the FIN; this timer does, until the socket closes.
  const hold = setTimeout(() => {}, 10_000)
  return new Promise((resolve) => {
    let fin = false
    let error: string | null = null
    socket.on('end', () => (fin = true))
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message))
    socket.on('close', () => {
      clearTimeout(hold)
      resolve({ fin, error })
    })
  })
}

/** `ending` settles when the connection that carried the request closes. */
function get(port: number, path: string, agent: http.Agent | false): { reply: Promise<Reply>; ending: Promise<SocketEnding> } {
  let onSocket!: (socket: net.Socket) => void
  const socket = new Promise<net.Socket>((resolve) => (onSocket = resolve))
  const reply = new Promise<Reply>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }))
    })
    req.on('socket', onSocket)
    req.on('error', reject)
  })
  return { reply, ending: socket.then(watch) }
}

/** A server with a fast route, a slow one held until the test lets it go, and a streamed one. */
async function serve(t: Test) {
  let arrived!: () => void
  const slowArrived = new Promise<void>((resolve) => (arrived = resolve))
  let releaseSlow!: () => void
  const slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve))
  const stream = new PassThrough()
  const koa = new Koa()
  koa.use(async (ctx) => {
    if (ctx.path === '/slow') {
      arrived()
      await slowReleased
      ctx.body = 'slow done'
    } else if (ctx.path === '/stream') {
      ctx.type = 'text/plain'
      ctx.body = stream
    } else ctx.body = 'fast'
  })
  const logs: string[] = []
  const logger = createLogger('info', new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) }))
  const running: RunningServer = await listen({ koa }, '127.0.0.1', 0, logger)
  const agent = new http.Agent({ keepAlive: true })
  t.teardown(() => {
    agent.destroy()
    running.server.closeAllConnections()
  })
  return { running, port: running.port, agent, slowArrived, releaseSlow, stream, logs }
}

t.test('shutdown lets a request in flight finish with Connection: close, ends idle kept-alive sockets with a FIN, and refuses new connections', async (t) => {
  const s = await serve(t)
  // Two kept-alive sockets, left idle in the agent's pool.
  const warm = [get(s.port, '/fast', s.agent), get(s.port, '/fast', s.agent)]
  t.same(
    (await Promise.all(warm.map((w) => w.reply))).map((r) => r.connection),
    ['keep-alive', 'keep-alive'],
  )
  const idleEndings = Promise.all(warm.map((w) => w.ending))

  // Its own kept-alive agent, so it does not take one of the idle sockets above.
  const slowAgent = new http.Agent({ keepAlive: true })
  t.teardown(() => slowAgent.destroy())
  const slow = get(s.port, '/slow', slowAgent)
  await s.slowArrived
  const startedAt = Date.now()
  const closed = s.running.close(10_000)

  t.same(
    await idleEndings,
    [
      { fin: true, error: null },
      { fin: true, error: null },
    ],
    'idle sockets end with a FIN, not a reset',
  )
  const refused = await get(s.port, '/fast', false).reply.then(
    () => 'answered',
    (err: NodeJS.ErrnoException) => err.code,
  )
  t.equal(refused, 'ECONNREFUSED', 'a new connection is refused once shutdown has begun')

  s.releaseSlow()
  const reply = await slow.reply
  t.equal(reply.status, 200)
  t.equal(reply.body, 'slow done')
  t.equal(reply.connection, 'close', 'the client is told not to reuse the socket')
  // The client closes a Connection: close socket itself once the body is in; no reset either way.
  t.equal((await slow.ending).error, null, 'and the socket closes without a reset')

  await closed
  t.ok(Date.now() - startedAt < 5_000, 'close ends once the last request is done, not at the timeout or the keep-alive timeout')
  t.notOk(
    s.logs.some((l) => l.includes('shutdown timeout')),
    'nothing was cut',
  )
  t.ok(s.logs.some((l) => l.includes('waiting for in-flight requests')))
})

t.test('a response that promised keep-alive before shutdown began has its socket ended as soon as it finishes', async (t) => {
  const s = await serve(t)
  s.stream.write('streamed ') // headers go out with the first chunk
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: s.port, path: '/stream', agent: s.agent }, resolve).on('error', reject)
  })
  t.equal(res.headers.connection, 'keep-alive', 'headers went out before shutdown')
  const ending = watch(res.socket)
  let body = ''
  res.on('data', (d: Buffer) => (body += d))
  const bodyDone = new Promise((resolve) => res.on('end', resolve))

  const startedAt = Date.now()
  const closed = s.running.close(10_000)
  s.stream.end('to the end')
  await bodyDone
  t.equal(body, 'streamed to the end', 'the whole body arrives')
  t.same(await ending, { fin: true, error: null })
  await closed
  t.ok(Date.now() - startedAt < 4_000, 'well before the 5 s keep-alive timeout would have ended it')
})

t.test('a request still running at the shutdown timeout is cut, so close always ends', async (t) => {
  const s = await serve(t)
  const slow = get(s.port, '/slow', s.agent).reply.then(
    () => 'answered',
    (err: NodeJS.ErrnoException) => err.code ?? err.message,
  )
  await s.slowArrived
  const startedAt = Date.now()
  await s.running.close(200)
  const elapsed = Date.now() - startedAt
  t.ok(elapsed >= 190 && elapsed < 2_000, `close waited for the timeout and no longer (${elapsed} ms)`)
  t.match(await slow, /ECONNRESET|socket hang up/, 'the request that outlived the timeout is cut')
  t.ok(
    s.logs.some((l) => l.includes('shutdown timeout')),
    'and the cut is logged',
  )
  s.releaseSlow()
})
