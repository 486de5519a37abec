/**
 * A case over text: the agent's graph runs in the graph runtime as a text session would (its LLM,
 * knowledge and tools, the tools answered as the case says), the caller's lines come from the
 * script or from the simulated caller, and the recording is judged by the case's assertions.
 */
import { type AgentConfig, type Definition, GraphRuntime, initialState, type RuntimeEvent, type RuntimeIO } from '../../engine/graph-runtime/index.js'
import { Recording } from './recording.js'
import { lineText, type TestCaseT } from './schema.js'
import { nextCallerLine } from './simulated-caller.js'
import { CaseError, type CaseEnd, NO_LLM, verdictOf } from './verdict.js'

export interface TextCaseInput {
  definition: Definition
  config: AgentConfig
  /** The runtime's io with the case's tools already in it (tool-mocks.ts). */
  io: RuntimeIO
  runId: string
  judgeModel: string | null
  signal: AbortSignal
}

/** The case's end, or what stopped it (a CaseError, a provider's failure, the signal) with what it had recorded by then. */
export async function runTextCase(c: TestCaseT, input: TextCaseInput): Promise<{ end: CaseEnd } | { thrown: unknown; recording: Recording }> {
  const rec = new Recording()
  try {
    await converse(c, input, rec)
    const judgeModel = input.judgeModel ?? input.config.llm.model
    return { end: await verdictOf(c, rec, { llm: input.io.llm, judgeModel, voice: null, signal: input.signal }) }
  } catch (err) {
    return { thrown: err, recording: rec }
  }
}

async function converse(c: TestCaseT, input: TextCaseInput, rec: Recording): Promise<void> {
  const { definition, config, io, signal } = input
  const runtime = new GraphRuntime(definition, config, io, initialState(definition, c.variables), { session_id: input.runId, channel: 'chat' })
  const drain = async (events: AsyncIterable<RuntimeEvent>) => {
    for await (const e of events) {
      if (e.type === 'error' && e.code === 'provider_not_configured') throw new CaseError('provider_not_configured', `The agent needs an LLM. ${NO_LLM}`)
      rec.event(e)
    }
    rec.variables = runtime.state.variables
  }
  await drain(runtime.start(signal))
  const caller = c.caller
  for (let turn = 0; !runtime.state.ended; turn++) {
    let line: string | null
    let hangUpAfter = false
    if (caller.type === 'scripted') {
      const next = caller.turns[turn]
      if (next === undefined) return rec.hungUp('caller')
      // Over text nobody talks over anybody: an interrupting line is said after the reply.
      line = lineText(next)
    } else {
      if (turn >= caller.max_turns) return rec.hungUp('turn_limit')
      if (!io.llm) throw new CaseError('provider_not_configured', `A simulated caller needs an LLM. ${NO_LLM}`)
      const next = await nextCallerLine(
        io.llm,
        { persona: caller.persona, goal: caller.goal, model: caller.model ?? config.llm.model, lines: rec.transcript },
        signal,
      )
      rec.usage.prompt_tokens += next.usage.prompt_tokens
      rec.usage.completion_tokens += next.usage.completion_tokens
      if (next.line === null) return rec.hungUp('caller')
      line = next.line
      hangUpAfter = next.hangUpAfter
    }
    rec.caller(line)
    await drain(runtime.turn(line, signal))
    if (hangUpAfter && !runtime.state.ended) return rec.hungUp('caller')
  }
}
