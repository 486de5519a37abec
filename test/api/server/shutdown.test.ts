import t from 'tap'
import http from 'node:http'
import { defineRoute } from '../../../api/index.js'
import { startTestApp } from '../../helpers/app.js'

/** A route that answers only when the test says so, to hold a request in flight. */
function slowRoute(gate: Promise<void>) {
  return defineRoute({
    operationId: 'test_slow',
    method: 'get',
    path: '/api/v1/test/slow',
    auth: 'P',
    tag: 'test',
    summary: 'held open by the test',
    status: 204,
    handler: async () => {
      await gate
      return undefined
    },
  })
}

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      })
      .on('error', reject)
  })
}

t.test('close lets an in-flight request finish and refuses new connections', async (t) => {
  let open!: () => void
  const gate = new Promise<void>((r) => (open = r))
  const app = await startTestApp({ extraRoutes: () => [slowRoute(gate)] })
  const inFlight = get(`${app.url}/api/v1/test/slow`)
  await new Promise((r) => setTimeout(r, 100))
  const closing = app.close()
  await new Promise((r) => setTimeout(r, 50))
  await t.rejects(get(`${app.url}/api/v1/auth/me`), 'new connections are refused while draining')
  open()
  t.equal(await inFlight, 204, 'the in-flight request completed')
  await closing
})

t.test('a request still running at the timeout is cut off and close returns', async (t) => {
  const never = new Promise<void>(() => {})
  const app = await startTestApp({ extraRoutes: () => [slowRoute(never)] })
  const inFlight = get(`${app.url}/api/v1/test/slow`).then(
    () => 'answered',
    () => 'cut',
  )
  await new Promise((r) => setTimeout(r, 100))
  const started = Date.now()
  await app.close() // the helper waits at most 1000 ms
  t.ok(Date.now() - started < 5000, 'close did not hang')
  t.equal(await inFlight, 'cut')
})
