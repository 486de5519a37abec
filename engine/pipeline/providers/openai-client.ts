/**
 * The one way the providers build an OpenAI SDK client (LLM, speech, transcription, embeddings):
 * no retries of the SDK's own (each caller retries by its own rules), nothing read from the
 * process environment (the caller decides every setting), no redirects, and requests through the
 * given connection pool (connections.ts: warm connections, the outbound guard for an
 * organization's base URL).
 */
import OpenAI from 'openai'
import { PROVIDER_FETCH_OPTIONS } from './client-checks.js'
import type { ProviderConnections } from './connections.js'

export interface OpenAiClientOptions {
  apiKey: string
  baseURL: string
  timeoutMs: number
  /** Without one, the SDK's own fetch (the embeddings client for the operator's destinations). */
  connections?: ProviderConnections
  organization?: string | null
}

export function openAiClient(o: OpenAiClientOptions): OpenAI {
  return new OpenAI({
    apiKey: o.apiKey,
    baseURL: o.baseURL,
    maxRetries: 0,
    timeout: Math.ceil(o.timeoutMs),
    organization: o.organization ?? null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    logLevel: 'off',
    fetchOptions: PROVIDER_FETCH_OPTIONS,
    ...(o.connections && { fetch: o.connections.fetch }),
  })
}
