/**
 * The analysis LLM: one non-streaming chat completion with `response_format: json_schema`, on the
 * organization's OpenAI-compatible access (its stored credential, else the platform's key), through
 * the same guarded connection pool its sessions use. Failures come back as the LLM provider's
 * ProviderError (stable code, retryable, Retry-After); the job worker decides about retries.
 */
import { APIConnectionTimeoutError } from 'openai'
import type { OpenAiAccess } from '../credentials/openai-access.js'
import type { ProviderConnections } from '../../engine/pipeline/providers/connections.js'
import { llmFailure } from '../../engine/pipeline/providers/llm/errors.js'
import { openAiClient } from '../../engine/pipeline/providers/openai-client.js'
import type { AnalysisRequest } from './prompt.js'

export interface AnalysisCompletion {
  content: string | null
  model: string
  usage: { prompt_tokens: number; completion_tokens: number }
}

export interface AnalysisLlm {
  /** Throws a ProviderError<'llm'> (or the signal's reason). */
  complete(request: AnalysisRequest & { model: string; maxTokens: number }, signal: AbortSignal): Promise<AnalysisCompletion>
}

/** An organization's analysis LLM, or undefined when it has no LLM access at all. */
export type AnalysisLlmFor = (organizationId: string) => AnalysisLlm | undefined

export function analysisLlmFor(deps: {
  accessFor: (organizationId: string) => OpenAiAccess | undefined
  /** The guarded pool an organization's own base URL connects through. */
  organizationConnections: ProviderConnections
  /** Deadline of one whole completion, body included. */
  timeoutMs: number
}): AnalysisLlmFor {
  return (organizationId) => {
    const access = deps.accessFor(organizationId)
    return access && openAiAnalysisLlm(access, access.origin === 'organization' ? deps.organizationConnections : undefined, deps.timeoutMs)
  }
}

function openAiAnalysisLlm(access: OpenAiAccess, connections: ProviderConnections | undefined, timeoutMs: number): AnalysisLlm {
  const client = openAiClient({
    apiKey: access.apiKey,
    baseURL: access.baseURL,
    organization: access.organization,
    timeoutMs,
    ...(connections && { connections }),
  })
  const host = new URL(access.baseURL).host
  return {
    async complete(request, signal) {
      // The SDK's timeout stops at the response head; this one covers the body too.
      const ac = new AbortController()
      const onAbort = () => ac.abort(signal.reason)
      signal.addEventListener('abort', onAbort, { once: true })
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        ac.abort()
      }, timeoutMs)
      try {
        const res = await client.chat.completions.create(
          {
            model: request.model,
            messages: request.messages,
            temperature: 0,
            max_tokens: request.maxTokens,
            response_format: { type: 'json_schema', json_schema: request.jsonSchema },
          },
          { signal: ac.signal },
        )
        return {
          content: res.choices?.[0]?.message?.content ?? null,
          model: typeof res.model === 'string' ? res.model : request.model,
          usage: { prompt_tokens: res.usage?.prompt_tokens ?? 0, completion_tokens: res.usage?.completion_tokens ?? 0 },
        }
      } catch (err) {
        signal.throwIfAborted()
        throw llmFailure(timedOut ? new APIConnectionTimeoutError() : err, { host, apiKey: access.apiKey, attempt: 1, timeoutMs })
      } finally {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
      }
    },
  }
}
