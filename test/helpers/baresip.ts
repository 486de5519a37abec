import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * baresip (Debian baresip-core) as a real softphone in the phone-call tests: it plays a WAV file as
 * its microphone (aufile) and, through the sndfile filter, writes what it heard to a WAV, so a test
 * can check audio went both ways. No sound card: aubridge stands in as the speaker.
 */
export const BARESIP_PATH = '/usr/bin/baresip'

export function skipWithoutBaresip(): string | false {
  if (fs.existsSync(BARESIP_PATH)) return false
  if (process.env['CI'] === 'true') throw new Error('baresip is not installed (scripts/system-packages.txt: baresip-core) and CI=true')
  return 'baresip is not installed'
}

export interface BaresipRun {
  code: number | null
  output: string
  /** The WAV files sndfile wrote: what the phone heard (decode) and what it sent (encode). */
  heard: Buffer | undefined
}

/**
 * Runs baresip for `seconds` with `commands` (menu commands such as `/dial sip:…`) and `wav` (8 kHz
 * mono PCM16) as its microphone. `answer`: it auto-answers incoming calls on `port`.
 */
export async function runBaresip(o: { port: number; wav: Buffer; commands?: string[]; seconds: number; user?: string }): Promise<BaresipRun> {
  const dir = await mkdtemp(join(tmpdir(), 'ozan-baresip-'))
  await writeFile(join(dir, 'speech.wav'), o.wav)
  await writeFile(
    join(dir, 'config'),
    [
      'poll_method poll',
      `sip_listen 127.0.0.1:${o.port}`,
      'sip_trans_def udp',
      'audio_player aubridge,nil',
      `audio_source aufile,${join(dir, 'speech.wav')}`,
      'audio_alert aubridge,nil',
      'audio_srate 8000',
      'audio_channels 1',
      'module_path /usr/lib/baresip/modules',
      'module g711.so',
      'module aufile.so',
      'module aubridge.so',
      'module sndfile.so',
      'module_app account.so',
      'module_app menu.so',
      `snd_path ${dir}`,
      '',
    ].join('\n'),
  )
  await writeFile(join(dir, 'accounts'), `<sip:${o.user ?? 'softphone'}@127.0.0.1>;regint=0;answermode=auto;audio_codecs=PCMU\n`)
  // -n lo: its SDP names 127.0.0.1 (else eth0's address), where it really sends RTP from.
  const args = ['-n', '127.0.0.1', '-f', dir, '-t', String(o.seconds), ...(o.commands ?? []).flatMap((c) => ['-e', c])]
  const child = spawn(BARESIP_PATH, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', resolve)
  })
  const files = await readdir(dir)
  output += `\nfiles: ${files.join(' ')}`
  const decode = files.find((n) => n.endsWith('-dec.wav'))
  const heard = decode ? await readFile(join(dir, decode)) : undefined
  await rm(dir, { recursive: true, force: true })
  return { code, output: output.replace(/\r?\[[0-9:]+\] audio=[0-9/]+ \(bit\/s\)\s*\r?/g, '').slice(-3000), heard }
}
