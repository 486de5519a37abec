import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import Router from '@koa/router'
import { announceReady, serveParent } from './ipc.js'

/**
 * A reference point between the two: the bare server's hello-world answered through Koa and
 * @koa/router (the frameworks Ozan's shell is built on) and nothing else: no middleware, no
 * auth, no database, no logging. Ozan cannot beat this; the bare-to-Koa gap is the frameworks'.
 */
const koa = new Koa()
const router = new Router()
router.get('/api/v1/auth/me', (ctx) => {
  ctx.body = { hello: 'world' }
})
koa.use(router.routes())
const server = http.createServer(koa.callback())
server.keepAliveTimeout = 5_000
server.listen(0, '127.0.0.1', () => announceReady((server.address() as AddressInfo).port))
serveParent(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})
