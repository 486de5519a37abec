/**
 * The embeddings side of the OpenAI stand-in (`POST /v1/embeddings`): OpenAI's request checks and
 * answer shape, with deterministic vectors a test can reason about.
 *
 * A vector is a hashed bag of words: each word, folded (lower case with Turkish İ/I, diacritics
 * off) and mapped through the synonym table to its group's first word, adds one to a dimension
 * chosen by its hash, with a sign from a second hash; the sum is scaled to unit length. So two
 * texts are similar exactly when they share (synonym-mapped) words, and a test makes "auto" mean
 * "car" by declaring the group ['car', 'auto']. Unrelated texts score near 0 (a hash collision can
 * add a little either way).
 */
import { errorBody } from './openai-wire.js'

/** Native vector size per model; `dimensions` may ask for less from the text-embedding-3 models. */
export const EMBEDDING_MODELS: Record<string, { dims: number; shortens: boolean }> = {
  'text-embedding-3-small': { dims: 1536, shortens: true },
  'text-embedding-3-large': { dims: 3072, shortens: true },
  'text-embedding-ada-002': { dims: 1536, shortens: false },
}
/** OpenAI's limit on inputs per request. */
const MAX_INPUTS = 2048

export const foldWord = (w: string) => w.replace(/İ/g, 'i').replace(/I/g, 'ı').toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/ı/g, 'i')

/** Word → the first word of its synonym group, all folded. */
export function synonymTable(groups: readonly (readonly string[])[]): Map<string, string> {
  const table = new Map<string, string>()
  for (const group of groups) {
    const [head, ...rest] = group.map(foldWord)
    for (const w of rest) if (head) table.set(w, head)
  }
  return table
}

function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

export function embeddingVector(text: string, dims: number, synonyms: ReadonlyMap<string, string>): Float32Array {
  const v = new Float32Array(dims)
  const words = text.match(/[\p{L}\p{N}]+/gu)?.map(foldWord) ?? []
  // Text without a word still gets a vector of its own (OpenAI never answers a zero vector).
  for (const w of words.length ? words : [`\u0000${text}`]) {
    const word = synonyms.get(w) ?? w
    v[fnv1a(word) % dims]! += fnv1a(word, 0x2545f491) & 1 ? 1 : -1
  }
  let sum = 0
  for (const x of v) sum += x * x
  // Opposite signs of colliding words can cancel out; one fixed dimension keeps it non-zero.
  if (sum === 0) return ((v[0] = 1), v)
  const inv = 1 / Math.sqrt(sum)
  return v.map((x) => x * inv)
}

export interface ValidEmbeddingsRequest {
  model: string
  inputs: string[]
  dims: number
  base64: boolean
}

export type CheckedEmbeddings = { ok: true; request: ValidEmbeddingsRequest } | { ok: false; status: number; body: unknown }

const refuse = (message: string, param: string | null, status = 400, code: string | null = null): CheckedEmbeddings => ({
  ok: false,
  status,
  body: errorBody(message, 'invalid_request_error', code, param),
})

export function checkEmbeddingsRequest(body: unknown): CheckedEmbeddings {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return refuse('We could not parse the JSON body of your request.', null)
  const b = body as Record<string, unknown>
  if (typeof b.model !== 'string' || !b.model) return refuse('you must provide a model parameter', 'model')
  const model = EMBEDDING_MODELS[b.model]
  if (!model) return refuse(`The model \`${b.model}\` does not exist or you do not have access to it.`, null, 404, 'model_not_found')
  const inputs = typeof b.input === 'string' ? [b.input] : b.input
  // Token arrays are valid at OpenAI but not understood here; a stand-in that guessed would mislead.
  if (!Array.isArray(inputs) || !inputs.length || !inputs.every((i) => typeof i === 'string'))
    return refuse("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", 'input')
  if (inputs.length > MAX_INPUTS) return refuse(`'$.input' is too long: at most ${MAX_INPUTS} inputs per request.`, 'input')
  if (inputs.some((i) => !i)) return refuse("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", 'input')
  if (b.encoding_format !== undefined && b.encoding_format !== 'float' && b.encoding_format !== 'base64') {
    return refuse(`'${String(b.encoding_format)}' is not one of ['float', 'base64'] - 'encoding_format'`, 'encoding_format')
  }
  let dims = model.dims
  if (b.dimensions !== undefined) {
    if (!model.shortens) return refuse('This model does not support specifying dimensions.', 'dimensions')
    if (!Number.isInteger(b.dimensions) || (b.dimensions as number) < 1 || (b.dimensions as number) > model.dims) {
      return refuse(`Invalid value for 'dimensions': must be an integer between 1 and ${model.dims}.`, 'dimensions')
    }
    dims = b.dimensions as number
  }
  return { ok: true, request: { model: b.model, inputs: inputs as string[], dims, base64: b.encoding_format === 'base64' } }
}

/** OpenAI's answer: one embedding per input, floats as JSON numbers or, when asked, base64 of float32 LE. */
export function embeddingsBody(r: ValidEmbeddingsRequest, synonyms: ReadonlyMap<string, string>): Record<string, unknown> {
  const data = r.inputs.map((text, index) => {
    const v = embeddingVector(text, r.dims, synonyms)
    return { object: 'embedding', index, embedding: r.base64 ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') : Array.from(v) }
  })
  const tokens = r.inputs.reduce((n, text) => n + Math.ceil(text.length / 4), 0)
  return { object: 'list', data, model: r.model, usage: { prompt_tokens: tokens, total_tokens: tokens } }
}
