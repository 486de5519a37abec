import t from 'tap'
import path from 'node:path'
import { peerSuite, run } from './webhook-peers.js'

// sdk/dotnet/OzanWebhook.cs, the C# check docs/webhook-verification.md points to, compiled by
// Debian's mono-mcs and run by mono.

const DOTNET_DIR = path.resolve(import.meta.dirname, '../../sdk/dotnet')

peerSuite(t, {
  language: '.NET',
  files: ['sdk/dotnet/OzanWebhook.cs', 'sdk/dotnet/OzanWebhookJson.cs'],
  definition: /static \w+ Verify\(/,
  toolchain: [
    { command: 'mcs', args: ['--version'], pkg: 'mono-mcs' },
    { command: 'mono', args: ['--version'], pkg: 'mono-runtime, a dependency of mono-mcs' },
  ],
  build: async (t, dir) => {
    const exe = path.join(dir, 'verify-cli.exe')
    const sources = ['OzanWebhook.cs', 'OzanWebhookJson.cs', 'VerifyCli.cs']
    // Warnings fail the build: the library is meant to be copied into other projects as is.
    const build = await run('mcs', ['-nologo', '-warnaserror+', `-out:${exe}`, ...sources], '', { cwd: DOTNET_DIR })
    t.equal(build.code, 0, `mcs: ${build.stdout}${build.stderr}`)
    return { command: 'mono', args: [exe] }
  },
})
