// Shared by the LLM provider tests (not a test file: tap includes only *.test.ts).
import type { Test } from 'tap'
import { startOpenAiStandIn, type OpenAiStandIn, type OpenAiStandInOptions } from '../../../../../engine/pipeline/providers/stand-ins/index.js'
import type { LlmChunk, LlmRequest } from '../../../../../engine/graph-runtime/index.js'
import { OpenAiLlm, type OpenAiLlmOptions, type ProviderError } from '../../../../../engine/pipeline/providers/llm/index.js'

export const KEY = 'sk-ozan-test-Zq81-secret-7731'

export async function setup(t: Test, llm: Partial<OpenAiLlmOptions> = {}, standIn: Partial<OpenAiStandInOptions> = {}) {
  const server: OpenAiStandIn = await startOpenAiStandIn({ apiKey: KEY, ...standIn })
  t.teardown(() => server.close())
  const retries: { attempt: number; delayMs: number; error: ProviderError<'llm'> }[] = []
  const client = new OpenAiLlm({ apiKey: KEY, baseURL: server.url, timeoutMs: 2000, idleTimeoutMs: 2000, onRetry: (r) => retries.push(r), ...llm })
  return { server, llm: client, retries }
}

export function request(over: Partial<LlmRequest> = {}): LlmRequest {
  return {
    model: undefined,
    messages: [
      { role: 'system', content: 'You are a receptionist.' },
      { role: 'user', content: 'Hello there' },
    ],
    tools: [],
    temperature: 0.3,
    maxTokens: 200,
    ...over,
  }
}

export async function collect(stream: AsyncIterable<LlmChunk>): Promise<LlmChunk[]> {
  const out: LlmChunk[] = []
  for await (const c of stream) out.push(c)
  return out
}

/** Runs a stream to its end; returns what it yielded and what it threw. */
export async function settle(stream: AsyncIterable<LlmChunk>): Promise<{ chunks: LlmChunk[]; error: unknown }> {
  const chunks: LlmChunk[] = []
  try {
    for await (const c of stream) chunks.push(c)
    return { chunks, error: null }
  } catch (error) {
    return { chunks, error }
  }
}

export const texts = (chunks: LlmChunk[]) => chunks.flatMap((c) => (c.type === 'text' ? [c.text] : []))
export const never = () => new AbortController().signal
