import type { LlmChunk, LlmClient, LlmRequest, RuntimeIO, ToolOutcome } from './io.js'
import { MAX_JSON_DEPTH, jsonExcess, type JsonBounds } from './json-bounds.js'

/**
 * What the runtime takes in from outside a definition — an action's result, the arguments an LLM
 * sends — is bounded like the API's own free-form JSON before it is stored, emitted or copied:
 * a value nested thousands of levels deep would overflow the stack of whoever stringifies it.
 */
export const RUNTIME_VALUE_BOUNDS: JsonBounds = { maxDepth: MAX_JSON_DEPTH, maxBytes: 256 * 1024 }

/** A variable the model or an action sets holds at most this (a declared default is bounded alike). */
export const VARIABLE_VALUE_BOUNDS: JsonBounds = { maxDepth: MAX_JSON_DEPTH, maxBytes: 16 * 1024 }

/** An action's result beyond RUNTIME_VALUE_BOUNDS is the action failing, with a reason the model can read. */
export function boundOutcome(outcome: ToolOutcome): ToolOutcome {
  // A runner is injected code: an outcome of another shape is its failure, not the runtime's.
  if (outcome === null || typeof outcome !== 'object') return { ok: false, error: 'The action runner returned no outcome' }
  if (!outcome.ok) return { ok: false, error: String(outcome.error).slice(0, 2000) }
  const excess = jsonExcess(outcome.output, RUNTIME_VALUE_BOUNDS)
  if (!excess) return outcome
  return {
    ok: false,
    error:
      excess.kind === 'depth'
        ? `The action's result nests deeper than ${excess.maxDepth} levels`
        : `The action's result is larger than ${excess.maxBytes} bytes of JSON`,
  }
}

/**
 * Marks every error the injected IO throws, so the runtime can tell a provider's failure (passed
 * on to its caller, who maps it: a 502, a call's provider error) from a failure of its own.
 */
export class IoFailures {
  private readonly seen = new WeakSet<object>()

  has(err: unknown): boolean {
    return typeof err === 'object' && err !== null && this.seen.has(err)
  }

  private mark(err: unknown): unknown {
    const e = typeof err === 'object' && err !== null ? err : new Error(String(err))
    this.seen.add(e)
    return e
  }

  /** The same IO, every throw of it marked. */
  wrap(io: RuntimeIO): RuntimeIO {
    const guarded: RuntimeIO = { now: () => io.now() }
    if (io.llm) guarded.llm = this.wrapLlm(io.llm)
    const tools = io.tools
    if (tools) {
      guarded.tools = {
        run: (ref, input, signal) => this.call(() => tools.run(ref, input, signal)),
        ...(tools.describe && {
          describe: (ref) => {
            try {
              return tools.describe!(ref)
            } catch (err) {
              throw this.mark(err)
            }
          },
        }),
        ...(tools.resolve && {
          resolve: (ref) => {
            try {
              return tools.resolve!(ref)
            } catch (err) {
              throw this.mark(err)
            }
          },
        }),
        ...(tools.runLibrary && { runLibrary: (tool, args, signal) => this.call(() => tools.runLibrary!(tool, args, signal)) }),
      }
    }
    const knowledge = io.knowledge
    if (knowledge) guarded.knowledge = { search: (query, topK, signal, ids) => this.call(() => knowledge.search(query, topK, signal, ids)) }
    return guarded
  }

  private async call<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f()
    } catch (err) {
      throw this.mark(err)
    }
  }

  private wrapLlm(llm: LlmClient): LlmClient {
    const failures = this
    return {
      async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk> {
        try {
          yield* llm.stream(request, signal)
        } catch (err) {
          throw failures.mark(err)
        }
      },
      ...(llm.prewarm && { prewarm: () => llm.prewarm!() }),
    }
  }
}
