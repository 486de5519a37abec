import { z } from 'zod'
import { BoundedJsonSchema, compileAnalysisSchema } from '../../engine/graph-runtime/index.js'
import { FREE_FORM, MAX_JSON_DEPTH, boundedJson, boundedJsonObject } from '../http/bounded-json.js'
import { findIntegration } from '../integrations/catalog.js'
import { HEADER_NAME, HEADER_VALUE, MAX_TIMEOUT_MS, RESERVED_HEADERS } from '../integrations/http.js'
import { placeholders, placeholdersIn } from './template.js'

/** A tool's limits (docs/tools.md). */
export const TOOL_LIMITS = {
  perOrganization: 200,
  descriptionChars: 1024,
  urlChars: 2048,
  headers: 20,
  headerValueChars: 4096,
  minTimeoutMs: 100,
  maxTimeoutMs: MAX_TIMEOUT_MS,
  defaultTimeoutMs: 10_000,
  /** An HTTP body or action input template, as compact JSON. */
  template: { maxDepth: MAX_JSON_DEPTH, maxBytes: 16 * 1024 },
} as const

/**
 * OpenAI's function names are 1–64 of [a-zA-Z0-9_-]; ours also start with a letter. Names the
 * graph runtime gives its own functions (intent transitions, global nodes, variable extraction,
 * integration actions as `<integration>__<action>`) are refused so a library tool never shadows one.
 */
export const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/
function reservedName(name: string): string | null {
  if (name === 'set_variables') return 'set_variables is the name of the runtime’s variable extraction'
  if (/^(transition|goto)_/.test(name)) return 'names starting with transition_ or goto_ are the runtime’s own'
  if (name.includes('__')) return 'a double underscore is how integration actions are named (slack__post_message)'
  return null
}

const Name = z
  .string()
  .regex(TOOL_NAME, 'A tool name starts with a letter and has at most 64 letters, digits, _ or -')
  .superRefine((name, ctx) => {
    const reason = reservedName(name)
    if (reason) ctx.addIssue({ code: 'custom', message: `This name is reserved: ${reason}` })
  })
  .describe('The function name the LLM sees; unique among the organization’s tools.')

const Description = z.string().trim().min(1).max(TOOL_LIMITS.descriptionChars).describe('What the tool does and when to call it; the LLM reads it.')

const Parameters = BoundedJsonSchema.describe(
  'JSON Schema of the arguments object (a subset: type, properties, required, additionalProperties, items, anyOf, enum, const, bounds, format; no pattern or $ref). The root is an object. At most 16 KiB and 12 levels deep.',
)

// Header names longer than this are refused at save (the http action takes any token length).
const HEADER_NAME_CHARS = 100

const Headers = z
  .record(z.string(), z.string().max(TOOL_LIMITS.headerValueChars).regex(HEADER_VALUE, 'Must be Latin-1 text without control characters'))
  .superRefine((h, ctx) => {
    if (Object.keys(h).length > TOOL_LIMITS.headers) ctx.addIssue({ code: 'custom', message: `At most ${TOOL_LIMITS.headers} headers` })
    for (const name of Object.keys(h)) {
      if (!HEADER_NAME.test(name) || name.length > HEADER_NAME_CHARS) ctx.addIssue({ code: 'custom', path: [name], message: 'Must be an HTTP header name' })
      else if (RESERVED_HEADERS.has(name.toLowerCase()))
        ctx.addIssue({ code: 'custom', path: [name], message: 'This header is set by the transport and cannot be given' })
    }
  })

const TimeoutMs = z
  .number()
  .int()
  .min(TOOL_LIMITS.minTimeoutMs)
  .max(TOOL_LIMITS.maxTimeoutMs)
  .default(TOOL_LIMITS.defaultTimeoutMs)
  .describe(`Deadline of one run, ${TOOL_LIMITS.minTimeoutMs} to ${TOOL_LIMITS.maxTimeoutMs} ms (default ${TOOL_LIMITS.defaultTimeoutMs}).`)

/** The scheme, host and port must be written out: arguments may fill the path and query only. */
const LITERAL_ORIGIN = /^https?:\/\/[^/?#{}]+(?:[/?#]|$)/i

export const HttpRuns = z
  .object({
    type: z.literal('http'),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
    url: z.string().max(TOOL_LIMITS.urlChars).describe('http(s) URL; {{argument}} placeholders (URL-encoded) may fill its path and query, never its host.'),
    headers: Headers.default({}).describe('Headers sent as they are shown; {{argument}} placeholders allowed. Secrets go in secret_headers.'),
    body: boundedJson(TOOL_LIMITS.template)
      .optional()
      .describe(
        'JSON body template: a string that is one {{argument}} alone takes the argument’s value with its type; other strings have placeholders replaced. Omitted: POST, PUT and PATCH send the arguments object; GET and DELETE add the arguments not used in the URL as query parameters.',
      ),
    timeout_ms: TimeoutMs,
  })
  .strict()
  .superRefine((r, ctx) => {
    const sample = r.url.replace(/\{\{[^}]*\}\}/g, 'x')
    let parsed: URL | null = null
    try {
      parsed = new URL(sample)
    } catch {
      // reported below
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol)) ctx.addIssue({ code: 'custom', path: ['url'], message: 'Must be an http or https URL' })
    else if (!LITERAL_ORIGIN.test(r.url)) ctx.addIssue({ code: 'custom', path: ['url'], message: 'The scheme, host and port cannot hold placeholders' })
    if (r.body !== undefined && r.method === 'GET') ctx.addIssue({ code: 'custom', path: ['body'], message: 'A GET request has no body' })
  })
  .meta({ id: 'ToolHttpRuns' })

export const IntegrationRuns = z
  .object({
    type: z.literal('integration'),
    integration: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/),
    action: z.string().regex(/^[a-z][a-z0-9_]{0,59}$/),
    input: boundedJsonObject(TOOL_LIMITS.template)
      .optional()
      .describe('Input template of the action (placeholders as in an HTTP body). Omitted: the arguments are the input.'),
    timeout_ms: TimeoutMs,
  })
  .strict()
  .superRefine((r, ctx) => {
    const integration = findIntegration(r.integration)
    if (!integration)
      return void ctx.addIssue({ code: 'custom', path: ['integration'], message: 'There is no such integration (GET /api/v1/integrations lists them)' })
    if (!integration.actions.some((a) => a.name === r.action))
      ctx.addIssue({ code: 'custom', path: ['action'], message: `Input should be ${integration.actions.map((a) => `'${a.name}'`).join(', ')}` })
  })
  .meta({ id: 'ToolIntegrationRuns' })

export const ToolRuns = z
  .discriminatedUnion('type', [HttpRuns, IntegrationRuns])
  .describe('What a call runs: an HTTP request through the outbound guard, or an integration action with the organization’s credential.')
export type ToolRunsT = z.output<typeof ToolRuns>

const SecretHeaders = Headers.describe(
  'Header values stored encrypted and never shown (only their names are): Authorization, API keys. No placeholders. On update, omitted keeps them; {} removes them.',
)

/** Every placeholder must name a declared argument, and secret headers cannot name one. */
function checkPlaceholders(v: { parameters?: Record<string, unknown>; runs?: ToolRunsT; secret_headers?: Record<string, string> }, ctx: z.RefinementCtx) {
  const declared = new Set(Object.keys((v.parameters?.properties as Record<string, unknown> | undefined) ?? {}))
  const runs = v.runs
  // Parameters that do not compile are reported at their own field; naming every placeholder as
  // undeclared as well would only bury that.
  if (runs && v.parameters && compileAnalysisSchema(v.parameters).ok) {
    const used: [string[], (string | number)[]][] =
      runs.type === 'http'
        ? [
            [placeholders(runs.url), ['runs', 'url']],
            [placeholdersIn(runs.headers), ['runs', 'headers']],
            [placeholdersIn(runs.body), ['runs', 'body']],
          ]
        : [[placeholdersIn(runs.input), ['runs', 'input']]]
    for (const [names, path] of used)
      for (const name of names) if (!declared.has(name)) ctx.addIssue({ code: 'custom', path, message: `{{${name}}} is not a property of parameters` })
  }
  for (const [name, value] of Object.entries(v.secret_headers ?? {})) {
    if (placeholders(value).length) ctx.addIssue({ code: 'custom', path: ['secret_headers', name], message: 'Secret headers hold no placeholders' })
    if (runs?.type === 'http' && Object.keys(runs.headers).some((h) => h.toLowerCase() === name.toLowerCase()))
      ctx.addIssue({ code: 'custom', path: ['secret_headers', name], message: 'Also given in runs.headers' })
  }
  if (v.secret_headers && Object.keys(v.secret_headers).length && runs?.type === 'integration')
    ctx.addIssue({ code: 'custom', path: ['secret_headers'], message: 'Secret headers are for http tools; an integration uses its stored credential' })
}

export const ToolCreate = z
  .object({
    name: Name,
    description: Description,
    parameters: Parameters.default({ type: 'object', properties: {} }),
    runs: ToolRuns,
    secret_headers: SecretHeaders.optional(),
  })
  .superRefine(checkPlaceholders)
  .meta({ id: 'ToolCreate' })

/** Fields left out stay as they are; any change writes the next version. */
export const ToolUpdate = z
  .object({
    name: Name.optional(),
    description: Description.optional(),
    parameters: Parameters.optional(),
    runs: ToolRuns.optional(),
    secret_headers: SecretHeaders.optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), 'Give at least one field to change')
  .meta({ id: 'ToolUpdate' })

export const ToolPath = z.object({ tool_id: z.uuid() })

export const ToolGetQuery = z.object({
  version: z.coerce.number().int().min(1).optional().describe('A past version of the tool (default: the newest).'),
})

export const ToolVersionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  before: z.coerce.number().int().min(2).optional().describe('Only versions below this one (the next page).'),
})

export const ToolVersionResponse = z
  .object({
    id: z.uuid(),
    version: z.number().int().min(1),
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    runs: ToolRuns,
    secret_header_names: z.array(z.string()).describe('Names of the write-only secret headers; their values are never shown.'),
    created_at: z.string(),
    created_by: z.string().nullable(),
  })
  .meta({ id: 'ToolVersionResponse' })

export const ToolResponse = ToolVersionResponse.extend({
  latest_version: z.number().int().min(1).describe('The newest version; equal to version unless a past one was asked for.'),
  updated_at: z.string(),
}).meta({ id: 'ToolResponse' })

export const ToolTestRequest = z
  .object({
    arguments: boundedJsonObject(FREE_FORM.actionInput).default({}).describe('Arguments as the LLM would send them; checked against parameters.'),
    version: z.number().int().min(1).optional().describe('Run a past version (default: the newest).'),
  })
  .meta({ id: 'ToolTestRequest' })

export const ToolTestResponse = z
  .object({
    ok: z.boolean().describe('Whether the tool succeeded; a failed run is ok false with error, still HTTP 200.'),
    output: z.unknown().describe('What the LLM would receive as the result (null on failure).'),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    version: z.number().int(),
    duration_ms: z.number().int().min(0),
  })
  .meta({ id: 'ToolTestResponse' })

export type ToolCreateT = z.output<typeof ToolCreate>
export type ToolUpdateT = z.output<typeof ToolUpdate>
export type ToolResponseT = z.output<typeof ToolResponse>
export type ToolVersionResponseT = z.output<typeof ToolVersionResponse>
export type ToolTestRequestT = z.output<typeof ToolTestRequest>
export type ToolTestResponseT = z.output<typeof ToolTestResponse>
export { checkPlaceholders }
