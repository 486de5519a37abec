import t from 'tap'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { peerSuite } from './webhook-peers.js'

// sdk/php/OzanWebhook.php, the PHP check docs/webhook-verification.md points to, run by Debian's php-cli.

const PHP_DIR = path.resolve(import.meta.dirname, '../../sdk/php')

peerSuite(t, {
  language: 'PHP',
  files: ['sdk/php/OzanWebhook.php'],
  definition: /function ozan_verify_webhook/,
  toolchain: [{ command: 'php', args: ['--version'], pkg: 'php-cli' }],
  build: async (t) => {
    // PHP needs no build; lint both files so a syntax error reads as one, not as a wrong verdict.
    for (const file of ['OzanWebhook.php', 'verify-cli.php']) {
      const lint = spawnSync('php', ['-l', path.join(PHP_DIR, file)], { encoding: 'utf8' })
      t.equal(lint.status, 0, `php -l ${file}: ${lint.stdout}${lint.stderr}`)
    }
    return { command: 'php', args: [path.join(PHP_DIR, 'verify-cli.php')] }
  },
})
