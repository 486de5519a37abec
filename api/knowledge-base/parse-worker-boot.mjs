// Entry of the document-parser worker (parser-pool.ts). Plain JavaScript on purpose: on Node 20 a
// worker does not get the TypeScript loader of the thread that started it, even though it inherits
// tsx's --import flag, so it registers tsx itself (a dependency, not a dev one) before loading the
// TypeScript worker. Works the same under `tsx bin/ozan.ts`, tap's loader, or plain node.
import { register } from 'tsx/esm/api'

register()
await import('./parse-worker.ts')
