/**
 * `npm run stand-ins`: the provider stand-ins (engine/pipeline/providers/stand-ins) on fixed
 * loopback ports, with a dialogue, so a newcomer can hold a scripted voice conversation without
 * provider keys. Prints how to point an organization at them (or, with --configure, does it) and
 * runs until SIGINT or SIGTERM. Exit codes: 0 stopped by a signal, 1 could not start or configure,
 * 2 bad flags. docs/stand-ins.md is the walk-through.
 */
import fs from 'node:fs'
import { configureCredentials } from './stand-ins/configure.js'
import { callerTurns, DEFAULT_DIALOGUE, Dialogue, DialogueError, parseDialogue, type Turn } from './stand-ins/dialogue.js'
import { banner } from './stand-ins/instructions.js'
import { parseOptions, USAGE, type DialogueSource } from './stand-ins/options.js'
import { PortTakenError, startStandIns, type StandInEvent } from './stand-ins/servers.js'

const fail = (code: number, message: string): never => {
  console.error(`stand-ins: ${message}`)
  process.exit(code)
}

function turnsFrom(source: DialogueSource): Turn[] {
  if (source.kind === 'default') return [...DEFAULT_DIALOGUE]
  if (source.kind === 'lines') return callerTurns(source.lines)
  let text: string
  try {
    text = fs.readFileSync(source.path, 'utf8')
  } catch (err) {
    return fail(2, `cannot read --script ${source.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
  try {
    return parseDialogue(text)
  } catch (err) {
    if (err instanceof DialogueError) return fail(2, `--script ${source.path}, ${err.message}`)
    throw err
  }
}

/** One console line per thing a stand-in did, so the newcomer sees the script at work. */
function show(e: StandInEvent): void {
  if (e.kind === 'heard') console.log(`[${e.provider}] caller speech, transcribed as the script's line: "${e.line}"`)
  else console.log(`[openai] chat reply to "${e.userText}": ${e.reply === null ? '(no scripted reply: the echo)' : `"${e.reply}"`}`)
}

async function main(): Promise<void> {
  const parsed = parseOptions(process.argv.slice(2), process.env)
  if (parsed.kind === 'help') return void console.log(USAGE)
  if (parsed.kind === 'usage') return fail(2, `${parsed.message}\n\n${USAGE}`)
  const o = parsed.options
  const turns = turnsFrom(o.dialogue)
  let running
  try {
    running = await startStandIns({ ...o, dialogue: new Dialogue(turns), onEvent: show })
  } catch (err) {
    if (err instanceof PortTakenError) return fail(1, `${err.message}: stop what uses it, or choose another with --${err.which}-port`)
    return fail(1, `cannot start: ${(err as Error).message}`)
  }
  const endpoints = { openaiUrl: running.openaiUrl, deepgramUrl: running.deepgramUrl, openaiKey: o.openaiKey, deepgramKey: o.deepgramKey, apiUrl: o.apiUrl }
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    running.close().then(
      () => process.exit(0),
      (err: unknown) => fail(1, `stopping: ${(err as Error).message}`),
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  console.log(banner(endpoints, turns, o.configure !== null))
  if (o.configure) {
    const outcomes = await configureCredentials(endpoints, o.configure.apiKey)
    for (const outcome of outcomes) if (outcome.ok) console.log(`--configure: ${outcome.message}`)
    const failed = outcomes.find((x) => !x.ok)
    if (failed) {
      await running.close()
      return fail(1, `--configure: ${failed.message}. The stand-ins are stopped.`)
    }
  }
}

main().catch((err: unknown) => fail(1, `failed: ${(err as Error).message}`))
