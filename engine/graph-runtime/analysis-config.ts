import { z } from 'zod'
import { describeExcess, jsonExcess, type JsonBounds } from './json-bounds.js'

/**
 * The agent config's `analysis` block: what the LLM is asked about a session once it ended
 * (api/analysis, docs/analysis.md). The structured-data schema is a JSON Schema the organization
 * writes, so it is bounded (size, depth) and limited to the subset OpenAI's structured outputs take,
 * checked here at save time: a schema that would fail every run is a 422 now, not a failed job later.
 */

/** The structured-data schema as compact JSON: 16 KiB, 12 levels of objects and arrays. */
export const ANALYSIS_SCHEMA_BOUNDS: JsonBounds = { maxDepth: 12, maxBytes: 16 * 1024 }
const MAX_PROMPT_CHARS = 4000

const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const
/** Formats zod checks with its own fixed expressions (no organization-supplied pattern is ever run). */
const FORMATS = ['date', 'date-time', 'time', 'email', 'uuid', 'uri', 'ipv4', 'ipv6'] as const
const PROPERTY_NAME = /^[A-Za-z0-9_.-]{1,64}$/

export interface AnalysisSchemaNode {
  type?: (typeof TYPES)[number] | (typeof TYPES)[number][]
  [keyword: string]: unknown
}

/**
 * The keywords a schema may use. `pattern` is left out on purpose: a regular expression written by
 * an organization and run on model output (which a caller can steer) could backtrack for minutes.
 * `$ref`/`$defs` are left out too: with depth bounded, a schema is written out in full.
 */
const SchemaNode: z.ZodType<AnalysisSchemaNode> = z.lazy(() =>
  z
    .object({
      type: z.union([z.enum(TYPES), z.array(z.enum(TYPES)).min(1).max(TYPES.length)]).optional(),
      title: z.string().max(200).optional(),
      description: z.string().max(1000).optional(),
      enum: z
        .array(z.union([z.string().max(200), z.number(), z.boolean(), z.null()]))
        .min(1)
        .max(100)
        .optional(),
      const: z.union([z.string().max(200), z.number(), z.boolean(), z.null()]).optional(),
      properties: z
        .record(z.string().regex(PROPERTY_NAME, 'property names are 1 to 64 letters, digits, _ . or -'), SchemaNode)
        .refine((p) => Object.keys(p).length <= 100, 'at most 100 properties per object')
        .optional(),
      required: z.array(z.string().max(64)).max(100).optional(),
      additionalProperties: z.boolean().optional(),
      items: SchemaNode.optional(),
      anyOf: z.array(SchemaNode).min(1).max(10).optional(),
      minItems: z.number().int().min(0).max(1000).optional(),
      maxItems: z.number().int().min(0).max(1000).optional(),
      minLength: z.number().int().min(0).max(10_000).optional(),
      maxLength: z.number().int().min(0).max(10_000).optional(),
      minimum: z.number().optional(),
      maximum: z.number().optional(),
      exclusiveMinimum: z.number().optional(),
      exclusiveMaximum: z.number().optional(),
      multipleOf: z.number().positive().optional(),
      format: z.enum(FORMATS).optional(),
    })
    .strict(),
)

/**
 * The zod validator of a schema of the subset, or a reason it cannot be one. Used at save time
 * (a schema that does not compile is refused) and by the analysis job (the model's answer is
 * checked against it), so both agree by construction.
 */
export function compileAnalysisSchema(schema: unknown): { ok: true; validator: z.ZodType } | { ok: false; message: string; path: PropertyKey[] } {
  const excess = jsonExcess(schema, ANALYSIS_SCHEMA_BOUNDS)
  if (excess) return { ok: false, message: describeExcess(excess).msg, path: [] }
  const shape = SchemaNode.safeParse(schema)
  if (!shape.success) {
    const issue = shape.error.issues[0]!
    const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : ''
    // A bad property name: zod's own message is "Invalid key in record"; the key's rule says more.
    const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : `${issue.message}${keys}`
    return { ok: false, message, path: issue.path }
  }
  if (shape.data.type !== 'object') return { ok: false, message: 'the root of the schema must be {"type": "object", …}', path: ['type'] }
  try {
    return { ok: true, validator: z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) }
  } catch (err) {
    return { ok: false, message: `the schema does not compile: ${(err as Error).message}`, path: [] }
  }
}

/** Formats OpenAI's strict structured outputs accept; `uri` is checked by us only. */
const STRICT_FORMATS = new Set(['date', 'date-time', 'time', 'email', 'uuid', 'ipv4', 'ipv6'])

/**
 * Whether OpenAI's strict structured outputs take the schema as it is: every object closed
 * (`additionalProperties: false`) with every property required, and no keyword strict mode does
 * not support (string lengths, the `uri` format). Otherwise it is sent with `strict: false` and
 * only our own check of the answer holds the model to it.
 */
export function isStrictSchema(schema: unknown): boolean {
  const stack: unknown[] = [schema]
  while (stack.length) {
    const node = stack.pop() as AnalysisSchemaNode | undefined
    if (!node || typeof node !== 'object') continue
    if (node.minLength !== undefined || node.maxLength !== undefined) return false
    if (node.format !== undefined && !STRICT_FORMATS.has(node.format as string)) return false
    if (node.properties !== undefined || node.type === 'object') {
      const keys = Object.keys((node.properties as Record<string, unknown> | undefined) ?? {})
      const required = new Set((node.required as string[] | undefined) ?? [])
      if (node.additionalProperties !== false || keys.some((k) => !required.has(k))) return false
      for (const k of keys) stack.push((node.properties as Record<string, unknown>)[k])
    }
    if (node.items) stack.push(node.items)
    if (Array.isArray(node.anyOf)) stack.push(...node.anyOf)
  }
  return true
}

/**
 * A JSON Schema a user gives, bounded in size and depth and compiled to a validator (the subset
 * compileAnalysisSchema knows); each use adds its own description. Analysis's structured data and
 * the tool library's parameters take it.
 */
export const BoundedJsonSchema = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  const excess = jsonExcess(schema, ANALYSIS_SCHEMA_BOUNDS)
  if (excess) {
    const { type, msg, ctx: details } = describeExcess(excess)
    return void ctx.addIssue({ code: 'custom', message: msg, params: { type, ctx: details } })
  }
  const compiled = compileAnalysisSchema(schema)
  if (!compiled.ok) ctx.addIssue({ code: 'custom', message: compiled.message, path: compiled.path })
})

const Prompt = z.string().trim().min(1).max(MAX_PROMPT_CHARS)

export const AnalysisConfig = z
  .object({
    summary: z
      .object({
        enabled: z.boolean().default(true),
        prompt: Prompt.optional().describe('What the summary should say (default: a few sentences on what happened and how it ended).'),
      })
      .optional(),
    success_evaluation: z
      .object({
        criteria: Prompt.describe('What counts as success, in plain words, e.g. "The caller booked an appointment."'),
        rubric: z
          .enum(['pass_fail', 'score_1_5'])
          .default('pass_fail')
          .describe('pass_fail: success is true or false; score_1_5: an integer score, 5 the best.'),
      })
      .optional(),
    structured_data: z
      .object({
        schema: BoundedJsonSchema.describe(
          'JSON Schema (a subset: type, properties, required, additionalProperties, items, anyOf, enum, const, bounds, format) of the data to extract; the root is an object. At most 16 KiB and 12 levels deep.',
        ),
        prompt: Prompt.optional().describe('Guidance for the extraction.'),
      })
      .optional(),
    model: z.string().min(1).max(100).optional().describe("The model asked; default: the agent's llm.model."),
    max_tokens: z.number().int().min(64).max(8192).default(1024).describe("Bound on the model's answer."),
  })
  .refine((a) => a.summary !== undefined || a.success_evaluation !== undefined || a.structured_data !== undefined, {
    message: 'ask for at least one of summary, success_evaluation and structured_data',
  })
  .describe('Post-call analysis, run once a session or call has ended (docs/analysis.md).')

export type AnalysisConfig = z.output<typeof AnalysisConfig>

/** Whether an analysis block asks the LLM for anything at all. */
export function analysisRequested(a: AnalysisConfig | undefined): a is AnalysisConfig {
  return !!a && (a.summary?.enabled === true || a.success_evaluation !== undefined || a.structured_data !== undefined)
}
