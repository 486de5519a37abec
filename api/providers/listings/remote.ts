/**
 * The providers' own listings, read into resources: OpenAI-compatible `GET {base_url}/models` and
 * Deepgram `GET {base_url}/v1/models`. Each answer is checked against the provider's documented
 * shape and bounded (items, name lengths) before anything of it is returned.
 */
import { z } from 'zod'
import type { ProviderResourceT } from '../schema.js'
import { ListingError, fetchListing } from './fetch-json.js'

/** More than any provider lists today (OpenAI ~100 models, Deepgram ~150 records). */
export const MAX_LISTED_ITEMS = 1000
const MAX_LANGUAGES = 100

export interface RemoteAccess {
  apiKey: string
  /** OpenAI's ends in /v1; Deepgram's is the origin (the path /v1/models is added). */
  baseUrl: string
  /** OpenAI-Organization header. */
  organization?: string | null
  fetch: typeof globalThis.fetch
  signal: AbortSignal
}

const Id = z.string().trim().min(1).max(200)
const Languages = z
  .array(z.unknown())
  .optional()
  .transform((l) => (l ?? []).filter((x): x is string => typeof x === 'string' && x.length > 0 && x.length <= 35).slice(0, MAX_LANGUAGES))

/** Items that fail the shape are skipped, not fatal: one odd record must not hide the rest. */
function items<T>(list: unknown[] | undefined, schema: z.ZodType<T>): T[] {
  const out: T[] = []
  for (const raw of (list ?? []).slice(0, MAX_LISTED_ITEMS)) {
    const parsed = schema.safeParse(raw)
    if (parsed.success) out.push(parsed.data)
  }
  return out
}

const OpenAiList = z.object({ object: z.literal('list').optional(), data: z.array(z.unknown()) })
const OpenAiModel = z.object({ id: Id })

/** Model ids of an OpenAI-compatible server, as listed. */
export async function listOpenAiModels(a: RemoteAccess): Promise<string[]> {
  const headers: Record<string, string> = { authorization: `Bearer ${a.apiKey}` }
  if (a.organization) headers['openai-organization'] = a.organization
  const body = OpenAiList.safeParse(await fetchListing({ url: `${a.baseUrl.replace(/\/+$/, '')}/models`, headers, fetch: a.fetch, signal: a.signal }))
  if (!body.success) throw new ListingError('upstream_error', 'The model listing is not an OpenAI model list.')
  return items(body.data.data, OpenAiModel).map((m) => m.id)
}

const DeepgramList = z.object({ stt: z.array(z.unknown()).optional(), tts: z.array(z.unknown()).optional() })
const DeepgramModel = z.object({ canonical_name: Id, name: z.string().max(200).optional(), languages: Languages })

/** Deepgram's speech models (stt) and Aura voices (tts); the id is the canonical name `model=` takes. */
export async function listDeepgramModels(a: RemoteAccess): Promise<{ stt: ProviderResourceT[]; tts: ProviderResourceT[] }> {
  const url = `${a.baseUrl.replace(/\/+$/, '')}/v1/models`
  const body = DeepgramList.safeParse(await fetchListing({ url, headers: { authorization: `Token ${a.apiKey}` }, fetch: a.fetch, signal: a.signal }))
  if (!body.success || (!body.data.stt && !body.data.tts)) throw new ListingError('upstream_error', 'The model listing is not a Deepgram model list.')
  const resources = (list: unknown[] | undefined) =>
    items(list, DeepgramModel).map((m) => ({ id: m.canonical_name, name: m.name || m.canonical_name, languages: m.languages }))
  return { stt: resources(body.data.stt), tts: resources(body.data.tts) }
}

// What an OpenAI-compatible list holds for each stage. OpenAI's own list mixes every kind of
// model; a self-hosted server lists what it serves, and its names follow the same habits.
const SPEECH_TO_TEXT = /whisper|transcribe/i
const TEXT_TO_SPEECH = /tts/i
const NOT_CHAT = /whisper|transcribe|tts|embed|moderation|dall-e|gpt-image|realtime|davinci|babbage/i

/** The ids of an OpenAI-compatible list that serve a stage. */
export function openAiModelsFor(stage: 'stt' | 'llm' | 'tts', ids: readonly string[]): string[] {
  if (stage === 'stt') return ids.filter((id) => SPEECH_TO_TEXT.test(id))
  if (stage === 'tts') return ids.filter((id) => TEXT_TO_SPEECH.test(id))
  return ids.filter((id) => !NOT_CHAT.test(id))
}
