import { z } from 'zod'
import { MAX_JSON_DEPTH, boundedJson } from './json-bounds.js'

/**
 * The agent graph (the spec's workflow "definition", left "not shown" there). docs/agents.md
 * explains every field with a full example. Structure is checked here; cross-references
 * (ids, variables, reachability, exits) are checked by validate.ts.
 */

export const NODE_ID = /^[A-Za-z][\w-]{0,63}$/
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
export const LIMITS = {
  nodes: 500,
  edges: 2000,
  variables: 200,
  templateChars: 8000,
  /** A variable's default, as compact JSON. */
  defaultBytes: 16 * 1024,
  /** An edge expression, as compact JSON. */
  expressionBytes: 64 * 1024,
} as const
/**
 * Only a backstop against values that would overflow the stack: validate.ts refuses an
 * expression past 32 levels of operators (and says where), which any real expression stays under.
 */
const EXPRESSION_MAX_DEPTH = 2 * MAX_JSON_DEPTH

const Id = z.string().regex(NODE_ID, 'Ids start with a letter and use letters, digits, _ or - (at most 64)')
const VariableName = z.string().regex(VARIABLE_NAME, 'Variable names use letters, digits and _ and do not start with a digit')
/** Text with {{variable}} placeholders (Mustache, no HTML escaping). */
export const Template = z.string().max(LIMITS.templateChars)
const Prompt = Template.min(1)

export const VARIABLE_TYPES = ['string', 'number', 'boolean', 'date', 'email', 'phone', 'object'] as const

export const Variable = z
  .object({
    name: VariableName,
    type: z.enum(VARIABLE_TYPES),
    default: boundedJson({ maxDepth: MAX_JSON_DEPTH, maxBytes: LIMITS.defaultBytes }).optional(),
    description: z.string().max(500).optional(),
  })
  .meta({ id: 'WorkflowVariable' })

/** A node with `global` can be entered from anywhere when the caller expresses the intent. */
const Global = z.object({ intent: z.string().trim().min(3).max(500) })

const base = {
  id: Id,
  name: z.string().max(120).optional(),
  global: Global.optional(),
  /** Editor position; ignored by the runtime. */
  position: z.object({ x: z.number(), y: z.number() }).optional(),
}

const FirstMessage = z.discriminatedUnion('mode', [z.object({ mode: z.literal('static'), text: Prompt }), z.object({ mode: z.literal('llm'), prompt: Prompt })])

export const ToolRef = z.object({
  integration: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/),
  action: z.string().regex(/^[a-z][a-z0-9_]{0,59}$/),
})

/**
 * A tool of the organization's library (api/tools) by id. Without `version` the newest version
 * runs; publishing an agent writes the version it had then, so a published agent keeps it.
 */
export const LibraryToolRef = z
  .object({
    tool_id: z.uuid(),
    version: z.number().int().min(1).optional(),
  })
  .strict()
  .meta({ id: 'LibraryToolRef' })

/** An integration action, or a library tool. */
export const AnyToolRef = z.union([ToolRef, LibraryToolRef])
export type LibraryToolRef = z.output<typeof LibraryToolRef>
export type AnyToolRef = z.output<typeof AnyToolRef>
export const isLibraryRef = (ref: AnyToolRef): ref is LibraryToolRef => 'tool_id' in ref

export const COLLECT_TYPES = ['number', 'date', 'yes_no', 'choice', 'email', 'phone', 'text'] as const

const nodes = {
  start: z.object({ ...base, type: z.literal('start'), data: z.object({ first_message: FirstMessage.optional() }).default({}) }),
  conversation: z.object({
    ...base,
    type: z.literal('conversation'),
    data: z.object({
      prompt: Prompt,
      tools: z.array(AnyToolRef).max(32).default([]),
      knowledge_base: z
        .object({ enabled: z.boolean().default(false), top_k: z.number().int().min(1).max(20).default(4), document_ids: z.array(z.uuid()).max(200).optional() })
        .default({ enabled: false, top_k: 4 }),
      extract: z
        .array(z.object({ variable: VariableName, description: z.string().min(1).max(500) }))
        .max(50)
        .default([]),
    }),
  }),
  say: z.object({ ...base, type: z.literal('say'), data: z.object({ text: Prompt }) }),
  collect: z.object({
    ...base,
    type: z.literal('collect'),
    data: z.object({
      variable: VariableName,
      value_type: z.enum(COLLECT_TYPES),
      prompt: Prompt,
      reprompt: Template.optional(),
      max_attempts: z.number().int().min(1).max(10).default(3),
      choices: z.array(z.string().trim().min(1).max(200)).min(2).max(50).optional(),
      /** Bounds of a number answer; one outside them counts as a failed attempt. */
      min: z.number().optional(),
      max: z.number().optional(),
    }),
  }),
  dtmf: z.object({
    ...base,
    type: z.literal('dtmf'),
    data: z.object({
      /**
       * Keys to press on a phone line (RFC 4733 events), e.g. "1" or "{{account_number}}#": a
       * template, checked once rendered (DTMF_KEYS); on other channels only recorded.
       */
      digits: z.string().trim().min(1).max(200),
    }),
  }),
  condition: z.object({ ...base, type: z.literal('condition'), data: z.object({ description: z.string().max(500).optional() }).default({}) }),
  tool: z.object({
    ...base,
    type: z.literal('tool'),
    data: z.object({
      action: AnyToolRef,
      input: z.record(z.string().max(64), Template).default({}),
      /** Variable name → dotted path into the action's result (e.g. "booking.id"). */
      output: z.record(VariableName, z.string().max(200)).default({}),
      say_while_running: Template.optional(),
    }),
  }),
  knowledge: z.object({
    ...base,
    type: z.literal('knowledge'),
    data: z.object({
      query: Template.default('{{system.last_user_message}}'),
      top_k: z.number().int().min(1).max(20).default(4),
      answer_prompt: Template.optional(),
    }),
  }),
  transfer: z.object({
    ...base,
    type: z.literal('transfer'),
    data: z.object({
      target: z
        .string()
        .regex(/^(\+[1-9]\d{6,14}|sips?:[^\s@]+@[^\s]+)$/, 'A transfer target is an E.164 number (+905551112233) or a SIP URI (sip:agent@pbx.example.com)'),
      mode: z.enum(['cold', 'warm']).default('cold'),
      message: Template.optional(),
      summary_prompt: Template.optional(),
    }),
  }),
  end: z.object({
    ...base,
    type: z.literal('end'),
    data: z
      .object({
        message: Template.optional(),
        disposition: z
          .string()
          .regex(/^[a-z][a-z0-9_]{0,39}$/)
          .default('completed'),
      })
      .default({ disposition: 'completed' }),
  }),
}

export const NODE_TYPES = Object.keys(nodes) as (keyof typeof nodes)[]
export type NodeType = keyof typeof nodes

export const Node = z.discriminatedUnion('type', Object.values(nodes) as [typeof nodes.start, ...(typeof nodes)[NodeType][]]).meta({ id: 'WorkflowNode' })

/** JSON Logic, checked against an operator allow-list by validate.ts. */
const JsonLogic = boundedJson({ maxDepth: EXPRESSION_MAX_DEPTH, maxBytes: LIMITS.expressionBytes })

export const OUTCOMES = ['collected', 'max_attempts', 'success', 'failure'] as const

export const Condition = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('always') }),
    z.object({ kind: z.literal('expression'), expression: JsonLogic }),
    z.object({ kind: z.literal('intent'), description: z.string().trim().min(3).max(500) }),
    z.object({ kind: z.literal('outcome'), outcome: z.enum(OUTCOMES) }),
  ])
  .meta({ id: 'EdgeCondition' })

export const Edge = z
  .object({
    id: Id,
    source: z.string(),
    target: z.string(),
    condition: Condition.default({ kind: 'always' }),
    label: z.string().max(120).optional(),
  })
  .meta({ id: 'WorkflowEdge' })

export const Definition = z
  .object({
    variables: z.array(Variable).max(LIMITS.variables).default([]),
    nodes: z.array(Node).min(1).max(LIMITS.nodes),
    edges: z.array(Edge).max(LIMITS.edges).default([]),
  })
  .meta({ id: 'GraphUpdate', description: 'The agent graph: variables, nodes and edges (see docs/agents.md).' })

export type Definition = z.output<typeof Definition>
export type WorkflowNode = z.output<typeof Node>
export type WorkflowEdge = z.output<typeof Edge>
export type EdgeCondition = z.output<typeof Condition>

/** Variables every template and expression may use without declaring them. */
export const SYSTEM_VARIABLES = ['last_user_message', 'caller_number', 'called_number', 'session_id', 'current_date', 'current_time', 'channel'] as const
