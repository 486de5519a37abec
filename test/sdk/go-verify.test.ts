import t from 'tap'
import path from 'node:path'
import { peerSuite, run } from './webhook-peers.js'

// sdk/go/ozanwebhook, the Go check docs/webhook-verification.md points to, built by Debian's golang-go.

const GO_DIR = path.resolve(import.meta.dirname, '../../sdk/go')

peerSuite(t, {
  language: 'Go',
  files: ['sdk/go/ozanwebhook/verify.go', 'sdk/go/go.mod'],
  definition: /func Verify\(/,
  toolchain: [{ command: 'go', args: ['version'], pkg: 'golang-go' }],
  build: async (t, dir) => {
    // Offline and out of the tree: standard library only, so nothing may be downloaded, and the
    // build cache lives in the test's temporary directory.
    const env = {
      ...process.env,
      HOME: dir,
      GOCACHE: path.join(dir, 'cache'),
      GOPATH: path.join(dir, 'gopath'),
      GOPROXY: 'off',
      GOTOOLCHAIN: 'local',
      GOFLAGS: '',
      GO111MODULE: 'on',
    }
    const gofmt = await run('gofmt', ['-l', '.'], '', { cwd: GO_DIR, env })
    t.equal(gofmt.code, 0, gofmt.stderr)
    t.equal(gofmt.stdout, '', 'gofmt -l lists no unformatted files')
    const vet = await run('go', ['vet', './...'], '', { cwd: GO_DIR, env })
    t.equal(vet.code, 0, `go vet: ${vet.stderr}`)
    const exe = path.join(dir, 'ozan-verify-webhook')
    const build = await run('go', ['build', '-o', exe, './cmd/ozan-verify-webhook'], '', { cwd: GO_DIR, env })
    t.equal(build.code, 0, `go build: ${build.stderr}`)
    return { command: exe, args: [] }
  },
})
