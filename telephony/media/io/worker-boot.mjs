// Entry of the media worker (worker-io.ts). Plain JavaScript on purpose: on Node 20 a worker does
// not get the TypeScript loader of the thread that started it, so it registers tsx itself before
// loading the TypeScript worker (as api/knowledge-base/parse-worker-boot.mjs does).
import { register } from 'tsx/esm/api'

register()
await import('./worker.ts')
