import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import ts from 'typescript'
import { CLIENT_DIR, DTS_PATH, JS_PATH, buildDts, buildJs } from '../../scripts/build-client.js'

// client/dist is committed (the API serves it, customers may vendor it): it must be exactly what
// `npm run build:client` makes from client/src now.

t.test('the committed bundle is client/src built (npm run build:client)', async (t) => {
  t.equal(fs.readFileSync(JS_PATH, 'utf8'), await buildJs(), 'client/dist/ozan-web.js is stale: run npm run build:client')
})

t.test('the committed declarations are client/src built (npm run build:client)', async (t) => {
  t.equal(fs.readFileSync(DTS_PATH, 'utf8'), buildDts(), 'client/dist/ozan-web.d.ts is stale: run npm run build:client')
})

t.test('one file, no dependencies: no import or require in the bundle, the worklets inside it', async (t) => {
  const js = fs.readFileSync(JS_PATH, 'utf8')
  t.notMatch(js, /^\s*import\s|\bimport\(|\brequire\(/m)
  t.match(js, /CAPTURE_PROCESSOR = "ozan-capture"[\s\S]*registerProcessor\(CAPTURE_PROCESSOR, CaptureProcessor\)/)
  t.match(js, /registerProcessor\(PLAYBACK_PROCESSOR, PlaybackProcessor\)/)
  const pkg = JSON.parse(fs.readFileSync(path.join(CLIENT_DIR, 'package.json'), 'utf8'))
  t.match(pkg, { name: '@ozan/web', type: 'module', types: './dist/ozan-web.d.ts' })
  t.notOk(pkg.dependencies, 'no runtime dependencies')
})

t.test('a page written in TypeScript type-checks against the declarations', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ozan-web-types-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.copyFileSync(DTS_PATH, path.join(dir, 'ozan-web.d.ts'))
  const page = path.join(dir, 'page.ts')
  fs.writeFileSync(
    page,
    `import { WebCall, WebCallError, type TranscriptEvent, type WebCallStats } from './ozan-web.js'
const call = new WebCall({ token: 't', wsUrl: 'wss://engine.example/v1/calls/ws?token=t&v=1' })
const off = call.on('transcript', (e: TranscriptEvent) => console.log(e.role, e.text, e.final, e.turnId, e.interrupted))
call.on('ended', (e) => console.log(e.reason, e.closeCode))
call.on('error', (e) => console.log(e.code, e.message))
call.on('status', (s) => console.log(s.toUpperCase()))
call.on('volume', (v) => console.log(v.caller + v.agent))
call.on('metrics', (m) => console.log(m.voiceToVoiceMs ?? 0))
call.start().catch((e: unknown) => e instanceof WebCallError && console.log(e.code))
call.setMicMuted(true)
call.setAssistantMuted(false)
const stats: WebCallStats = call.stats
console.log(stats.framesSent, stats.callerFramesDropped, stats.playbackUnderruns)
void call.setInputDevice('x')
void WebCall.listInputDevices().then((d) => d.map((x) => x.label))
void call.stop().then(off)
// @ts-expect-error: the events are typed
call.on('transcript', (e: { nope: number }) => e)
`,
  )
  const program = ts.createProgram([page], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
  })
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
  t.same(diagnostics, [])
})
