import type { ToolOutcome, ToolRunner } from '../../engine/graph-runtime/index.js'
import type { TestCaseT } from './schema.js'

type Ref = { integration: string; action: string }
type Run = (ref: Ref, input: Record<string, unknown>, signal: AbortSignal) => Promise<ToolOutcome>

/**
 * The tools a case's agent sees: a tool the case gives a result for answers it without running;
 * any other runs for real only when the suite allows live tools, and otherwise answers an error
 * that says why (a test never sends a real message or books a real slot unasked). Library tools
 * (a runner's runLibrary, when it has one) are answered the same way, by the integration and
 * action they run.
 */
export function caseTools(results: TestCaseT['tool_results'], live: ToolRunner | undefined, liveTools: boolean): ToolRunner {
  const answers = new Map(results.map((r) => [`${r.integration}.${r.action}`, r]))
  const answer = (ref: Ref, input: Record<string, unknown>, signal: AbortSignal, runLive: Run | undefined): Promise<ToolOutcome> => {
    const given = answers.get(`${ref.integration}.${ref.action}`)
    if (given) return Promise.resolve(given.error !== undefined ? { ok: false, error: given.error } : { ok: true, output: given.output ?? null })
    if (liveTools && runLive) return runLive(ref, input, signal)
    return Promise.resolve({
      ok: false,
      error: `Not run in this test: the case gives no tool_results for ${ref.integration}.${ref.action}, and the suite does not run tools live.`,
    })
  }
  const runner: ToolRunner = {
    ...live,
    run: (ref, input, signal) => answer(ref, input, signal, live && ((r, i, s) => live.run(r, i, s))),
    describe: (ref) => live?.describe?.(ref),
  }
  const runLibrary = (live as { runLibrary?: Run } | undefined)?.runLibrary
  if (runLibrary)
    Object.assign(runner, {
      runLibrary: (tool: Ref, args: Record<string, unknown>, signal: AbortSignal) => answer(tool, args, signal, (t, a, s) => runLibrary.call(live, t, a, s)),
    })
  return runner
}
