/**
 * The voice bench's providers and platform side: stand-in providers (Deepgram live STT, OpenAI
 * chat and speech on one base URL) and an organization with their credentials and a published
 * agent that talks through them.
 */
import {
  startDeepgramStandIn,
  type DeepgramStandIn,
  type DeepgramStandInOptions,
  startOpenAiStandIn,
  type OpenAiStandIn,
  startSpeechStandIn,
  type SpeechStandIn,
} from '../../engine/pipeline/providers/stand-ins/index.js'
import type { LatencyTarget } from './result.js'
import type { Lang } from './utterances.js'

export const END_OF_TURN_WAIT_MS = 300
export const LLM_TOKENS_PER_S = 50

/**
 * What the agent answers every turn in the capacity steps, web (voice-calls) and phone
 * (sip-calls) alike, so both carry the same conversation: ~7.1 s of speech at the capacity
 * stand-ins' 50 ms a character.
 */
export const CAPACITY_REPLY =
  'Thank you, I have noted that down. Let me check the booking system for you, it takes only a moment. Anything else I can help you with today?'
/** The capacity stand-ins' speech pace (startProviders' msPerChar in both benches). */
export const CAPACITY_MS_PER_CHAR = 50
/** A web capacity caller's pause after the reply, on average (capacity.ts TalkingCall: 300–900 ms). */
export const CAPACITY_CALLER_PAUSE_MS = 600

const KEYS = { openai: 'sk-bench-standin', deepgram: 'dg-bench-standin' }

export interface Providers {
  dg: DeepgramStandIn
  llm: OpenAiStandIn
  speech: SpeechStandIn
  /** One OpenAI base URL for chat and speech (an organization has one "openai" credential). */
  openaiBaseUrl: string
  close(): Promise<void>
}

export async function startProviders(o: {
  stt: number | LatencyTarget
  sttInterimMs?: number
  llm: number | LatencyTarget
  tts: number | LatencyTarget
  msPerChar: number
  seed: number
  /** What an unscripted utterance says (callers that cannot script each line: SIPp's, in sip-calls). */
  sttFallback?: DeepgramStandInOptions['fallback']
}): Promise<Providers> {
  const dg = await startDeepgramStandIn({
    apiKey: KEYS.deepgram,
    ...(o.sttFallback && { fallback: o.sttFallback }),
    finalLatencyMs: o.stt,
    seed: o.seed,
    ...(o.sttInterimMs !== undefined && { interimEveryMs: o.sttInterimMs }),
  })
  const speech = await startSpeechStandIn({
    openaiKey: KEYS.openai,
    firstByteLatencyMs: typeof o.tts === 'number' ? o.tts : { ...o.tts, seed: o.seed + 1 },
    msPerChar: o.msPerChar,
  })
  // One base URL for chat and speech (one "openai" credential), served by one process, no proxy hop.
  const llm = await startOpenAiStandIn({
    apiKey: KEYS.openai,
    firstTokenLatencyMs: typeof o.llm === 'number' ? o.llm : { ...o.llm, seed: o.seed },
    tokensPerSecond: LLM_TOKENS_PER_S,
    mount: [{ prefix: '/v1/audio/speech', handler: speech.handler }],
  })
  return {
    dg,
    llm,
    speech,
    openaiBaseUrl: llm.url,
    async close() {
      await Promise.all([dg.close(), llm.close(), speech.close()])
    },
  }
}

/** The voice bench's turn-taking: a fixed silence wait, so its latency figures have one known wait. */
export const BENCH_TURN_TAKING = { strategy: 'silence', endpointing_ms: END_OF_TURN_WAIT_MS, preemptive_generation: true }

export interface Org {
  token: string
  agentId: string
  mint(): Promise<string>
}

/**
 * `turnTaking` replaces the agent's `turn_taking` config (the voice bench's fixed 300 ms silence
 * wait by default); null leaves it out, so the agent runs on the platform's defaults (what a new
 * agent gets: the conversation-quality bench measures those).
 */
export async function setUpOrg(
  apiUrl: string,
  p: Providers,
  lang: Lang,
  tag: string,
  turnTaking: Record<string, unknown> | null = BENCH_TURN_TAKING,
): Promise<Org> {
  const call = async (method: string, urlPath: string, body?: unknown, token?: string): Promise<Record<string, unknown>> => {
    const res = await fetch(apiUrl + urlPath, {
      method,
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    // Never echo a body that may hold the ws URL; these answers are errors or ids.
    if (!res.ok) throw new Error(`${method} ${urlPath}: ${res.status} ${urlPath.includes('web-token') ? '' : text.slice(0, 300)}`)
    return text ? (JSON.parse(text) as Record<string, unknown>) : {}
  }
  const reg = await call('POST', '/api/v1/auth/register', {
    email: `bench-${tag}-${Date.now()}@example.com`,
    password: 'correct horse battery staple',
    name: 'Bench',
  })
  const token = reg.access_token as string
  await call('PUT', '/api/v1/credentials', { provider: 'openai', fields: { api_key: KEYS.openai, base_url: p.openaiBaseUrl } }, token)
  await call('PUT', '/api/v1/credentials', { provider: 'deepgram', fields: { api_key: KEYS.deepgram, base_url: p.dg.url.replace(/^ws/, 'http') } }, token)
  const agentId = (await call('POST', '/api/v1/workflows', { name: `Bench ${tag}` }, token)).id as string
  const greeting = lang === 'tr' ? 'Merhaba, hoş geldiniz.' : 'Hello, thanks for calling.'
  const definition = {
    variables: [],
    nodes: [
      { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: greeting } } },
      { id: 'chat', type: 'conversation', data: { prompt: 'You take restaurant bookings. Answer in two short sentences.' } },
      { id: 'bye', type: 'end' },
    ],
    // An exit that never fires (an intent edge would add classification requests to the LLM's log).
    edges: [
      { id: 'e1', source: 'start', target: 'chat' },
      { id: 'e2', source: 'chat', target: 'bye', condition: { kind: 'expression', expression: { '==': [1, 2] } } },
    ],
  }
  await call('PUT', `/api/v1/workflows/${agentId}/definition`, definition, token)
  const config = {
    language: lang === 'tr' ? 'tr-TR' : 'en-US',
    stt: { provider: 'deepgram' },
    llm: { provider: 'openai', model: 'gpt-4o-mini' },
    tts: { provider: 'openai' },
    ...(turnTaking && { turn_taking: turnTaking }),
    silence_timeout_s: 120,
  }
  await call('PUT', `/api/v1/workflows/${agentId}/config`, config, token)
  await call('POST', `/api/v1/workflows/${agentId}/publish`, undefined, token)
  return { token, agentId, mint: async () => (await call('POST', '/api/v1/calls/web-token', { workflow_uuid: agentId }, token)).ws_url as string }
}
