import { announceReady, serveParent } from './ipc.js'
import { startBenchApp } from './app.js'

/** The real app as `npm start` builds it (see app.ts), run as a forked child of a bench. */
const { server, close } = await startBenchApp()
announceReady(server.port)
serveParent(close)
