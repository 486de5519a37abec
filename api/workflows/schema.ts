import { z } from 'zod'
import { AgentConfig, Definition } from '../../engine/graph-runtime/index.js'
import { DEFAULT_PAGE_LIMITS, pageQuery } from '../http/paging.js'

export const WorkflowCreate = z
  .object({
    name: z.string().trim().min(1).max(120),
    description: z.string().max(2000).default(''),
    template_id: z.string().max(64).optional().describe('Start from a ready-made graph (GET /workflows/templates).'),
    definition: Definition.optional().describe('The initial graph; overrides the template’s.'),
    config: AgentConfig.optional(),
  })
  .meta({ id: 'WorkflowCreate' })

const EnvironmentRef = z.object({ id: z.uuid(), slug: z.enum(['dev', 'staging', 'prod']) })

export const WorkflowSummary = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    environment: EnvironmentRef,
    archived: z.boolean(),
    published_version: z.number().int().nullable().describe('The newest published version; null if never published.'),
    template_id: z.string().nullable(),
    source_workflow_id: z.uuid().nullable().describe('The agent this one was promoted from.'),
    draft_updated_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'WorkflowSummary' })

export const VersionInfo = z
  .object({ version: z.number().int(), published_at: z.iso.datetime(), published_by: z.uuid().nullable() })
  .meta({ id: 'WorkflowVersionInfo' })

export const WorkflowDetail = WorkflowSummary.extend({
  definition: Definition.describe('The draft graph.'),
  config: AgentConfig.describe('The draft config.'),
  versions: z.array(VersionInfo).describe('Published versions, newest first.'),
}).meta({ id: 'WorkflowDetail' })

export const DefinitionResponse = z
  .object({
    workflow_id: z.uuid(),
    state: z.enum(['draft', 'published']),
    version: z.number().int().nullable().describe('The version number of a published snapshot; null for the draft.'),
    definition: Definition,
    config: AgentConfig,
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'DefinitionResponse' })

export const PromoteRequest = z
  .object({
    target_environment: z.string().trim().min(1).max(64).describe('dev, staging or prod (of the agent’s project), or an environment uuid of the organization.'),
  })
  .meta({ id: 'PromoteRequest' })

export const WorkflowTemplate = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    language: z.string(),
    tags: z.array(z.string()),
    needs_llm: z.boolean().describe('False when every node is deterministic, so it runs with no LLM configured.'),
    definition: Definition,
    config: AgentConfig,
  })
  .meta({ id: 'WorkflowTemplate' })

export const WorkflowPath = z.object({ workflow_uuid: z.uuid() })
export const VersionPath = z.object({ workflow_uuid: z.uuid(), version: z.coerce.number().int().min(1).max(1_000_000) })
export const DEFAULT_WORKFLOW_PAGE_LIMITS = DEFAULT_PAGE_LIMITS
export const ListQuery = z.object({
  archived: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('List archived agents instead (default false).'),
  ...pageQuery(DEFAULT_WORKFLOW_PAGE_LIMITS),
})

export type WorkflowSummaryT = z.output<typeof WorkflowSummary>
export type WorkflowDetailT = z.output<typeof WorkflowDetail>
export type DefinitionResponseT = z.output<typeof DefinitionResponse>
export type WorkflowTemplateT = z.output<typeof WorkflowTemplate>
