import { randomUUID } from 'node:crypto'
import type { Clock, EventBus } from '../../core/index.js'
import type { EnvironmentRow, PageRequest, Repos, WorkflowRow, WorkflowSummaryRow } from '../../db/index.js'
import { AgentConfig, Definition, validateDefinition } from '../../engine/graph-runtime/index.js'
import { ApiError } from '../http/errors.js'
import { ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import type { EntitlementGuard } from '../entitlements/index.js'
import type { DefinitionResponseT, WorkflowDetailT, WorkflowSummaryT } from './schema.js'
import { DEFAULT_DEFINITION, templates } from './templates/index.js'

const iso = (ms: number) => new Date(ms).toISOString()
const scope = (p: Principal) => ({ organizationId: p.organizationId, environmentId: p.environmentId })

/** Rejects a graph the schema accepted but whose parts do not fit together (422, pointed). */
export function assertValid(definition: Definition, at: (string | number)[]): void {
  const problems = validateDefinition(definition)
  if (problems.length) throw new ValidationError(problems.map((p) => ({ type: p.type, loc: [...at, ...p.loc], msg: p.msg })))
}

export class WorkflowService {
  constructor(
    private readonly repos: Repos,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    /** The plan's agent limit (402 quota_exceeded). */
    private readonly quota: Pick<EntitlementGuard, 'assertRoom'>,
    /**
     * Pins the library tools a graph names to their newest versions at publish (api/tools), so a
     * published version keeps each tool as it was; throws a 422 for a tool the organization lacks.
     */
    private readonly pinTools: (organizationId: string, definition: string, at: (string | number)[]) => string = (_, d) => d,
  ) {}

  create(p: Principal, input: { name: string; description: string; template_id?: string; definition?: Definition; config?: AgentConfig }): WorkflowDetailT {
    const template = input.template_id === undefined ? undefined : templates().find((t) => t.id === input.template_id)
    if (input.template_id !== undefined && !template) throw new ApiError('unknown_template')
    const definition = input.definition ?? template?.definition ?? Definition.parse(DEFAULT_DEFINITION)
    if (input.definition) assertValid(definition, ['body', 'definition'])
    const config = input.config ?? template?.config ?? AgentConfig.parse({})
    const id = randomUUID()
    this.quota.assertRoom(p.organizationId, 'agents')
    this.repos.workflows.insert({
      id,
      organization_id: p.organizationId,
      environment_id: p.environmentId,
      lineage_id: id,
      source_workflow_id: null,
      name: input.name,
      description: input.description,
      template_id: template?.id ?? null,
      draft_definition: JSON.stringify(definition),
      draft_config: JSON.stringify(config),
      created_by: p.userId,
      created_at: this.clock.now(),
    })
    return this.detail(p, id)
  }

  list(p: Principal, archived: boolean, at: PageRequest): { items: WorkflowSummaryT[]; total: number } {
    const env = this.environment(p)
    const page = this.repos.workflows.page(scope(p), archived, at)
    return { items: page.items.map((r) => summary(r, env)), total: page.total }
  }

  detail(p: Principal, id: string): WorkflowDetailT {
    const row = this.row(p, id)
    return {
      ...summary(row, this.environment(p)),
      definition: JSON.parse(row.draft_definition) as Definition,
      config: JSON.parse(row.draft_config) as AgentConfig,
      versions: this.repos.workflows.versions(row.id).map((v) => ({ version: v.version, published_at: iso(v.published_at), published_by: v.published_by })),
    }
  }

  remove(p: Principal, id: string): void {
    if (!this.repos.workflows.softDelete(scope(p), id, this.clock.now())) throw new ApiError('not_found')
  }

  putDefinition(p: Principal, id: string, definition: Definition): DefinitionResponseT {
    this.row(p, id)
    assertValid(definition, ['body'])
    this.repos.workflows.setDraft(scope(p), id, { definition: JSON.stringify(definition) }, this.clock.now())
    return this.draft(p, id)
  }

  putConfig(p: Principal, id: string, config: AgentConfig): DefinitionResponseT {
    this.row(p, id)
    this.repos.workflows.setDraft(scope(p), id, { config: JSON.stringify(config) }, this.clock.now())
    return this.draft(p, id)
  }

  /** Snapshots the draft as the next version; the draft must validate (it may predate a rule). */
  publish(p: Principal, id: string): DefinitionResponseT {
    const row = this.row(p, id)
    const definition = JSON.parse(row.draft_definition) as Definition
    assertValid(definition, ['draft', 'definition'])
    const pinned = this.pinTools(p.organizationId, row.draft_definition, ['draft', 'definition'])
    const now = this.clock.now()
    const version = this.repos.workflows.publish(row, pinned, row.draft_config, p.userId, now)
    const env = this.environment(p)
    this.bus.publish({
      type: 'workflow.published',
      organizationId: p.organizationId,
      environmentId: p.environmentId,
      occurredAt: now,
      data: { workflow_uuid: id, name: row.name, version, environment: env.slug, environment_id: env.id, published_by: p.userId },
    })
    return this.published(row.id, version)
  }

  version(p: Principal, id: string, version: number): DefinitionResponseT {
    this.row(p, id)
    if (!this.repos.workflows.version(id, version)) throw new ApiError('not_found')
    return this.published(id, version)
  }

  /**
   * Copies the newest published version (or the draft when none) into another environment as a
   * new agent of the same lineage, published there as its version 1 so it can run at once.
   */
  promote(p: Principal, id: string, target: string): WorkflowDetailT {
    const { repos, clock } = this
    const row = this.row(p, id)
    const source = this.environment(p)
    const dest = this.resolveTarget(p, source, target)
    if (dest.id === source.id) throw new ApiError('same_environment')
    const snapshot = row.latest_version === null ? null : repos.workflows.version(row.id, row.latest_version)!
    const definition = snapshot?.definition ?? this.pinTools(p.organizationId, row.draft_definition, ['draft', 'definition'])
    const config = snapshot?.config ?? row.draft_config
    const now = clock.now()
    const newId = randomUUID()
    repos.transaction(() => {
      if (repos.workflows.inLineage(p.organizationId, dest.id, row.lineage_id)) throw new ApiError('already_in_environment')
      this.quota.assertRoom(p.organizationId, 'agents')
      repos.workflows.insert({
        id: newId,
        organization_id: p.organizationId,
        environment_id: dest.id,
        lineage_id: row.lineage_id,
        source_workflow_id: row.id,
        name: row.name,
        description: row.description,
        template_id: row.template_id,
        draft_definition: definition,
        draft_config: config,
        created_by: p.userId,
        created_at: now,
      })
      repos.workflows.publish(repos.workflows.get({ organizationId: p.organizationId, environmentId: dest.id }, newId)!, definition, config, p.userId, now)
    })
    // The copy's version 1 is a published version too: receivers that watch workflow.published
    // see an environment go live however it got there.
    this.bus.publish({
      type: 'workflow.published',
      organizationId: p.organizationId,
      environmentId: dest.id,
      occurredAt: now,
      data: { workflow_uuid: newId, name: row.name, version: 1, environment: dest.slug, environment_id: dest.id, published_by: p.userId },
    })
    this.bus.publish({
      type: 'workflow.promoted',
      organizationId: p.organizationId,
      environmentId: dest.id,
      occurredAt: now,
      data: {
        workflow_uuid: id,
        target_workflow_uuid: newId,
        name: row.name,
        source_environment: source.slug,
        target_environment: dest.slug,
        target_environment_id: dest.id,
        source_version: snapshot?.version ?? null,
        promoted_by: p.userId,
      },
    })
    return this.detail({ ...p, environmentId: dest.id, environment: dest.slug, projectId: dest.project_id }, newId)
  }

  duplicate(p: Principal, id: string): WorkflowDetailT {
    const row = this.row(p, id)
    const newId = randomUUID()
    this.quota.assertRoom(p.organizationId, 'agents')
    this.repos.workflows.insert({
      id: newId,
      organization_id: p.organizationId,
      environment_id: p.environmentId,
      lineage_id: newId,
      source_workflow_id: null,
      name: `Copy of ${row.name}`.slice(0, 120),
      description: row.description,
      template_id: row.template_id,
      draft_definition: row.draft_definition,
      draft_config: row.draft_config,
      created_by: p.userId,
      created_at: this.clock.now(),
    })
    return this.detail(p, newId)
  }

  setArchived(p: Principal, id: string, archived: boolean): WorkflowSummaryT {
    this.row(p, id)
    this.repos.workflows.setArchived(scope(p), id, archived, this.clock.now())
    return summary(this.row(p, id), this.environment(p))
  }

  private draft(p: Principal, id: string): DefinitionResponseT {
    const row = this.row(p, id)
    return {
      workflow_id: id,
      state: 'draft',
      version: null,
      definition: JSON.parse(row.draft_definition) as Definition,
      config: JSON.parse(row.draft_config) as AgentConfig,
      updated_at: iso(row.draft_updated_at),
    }
  }

  private published(id: string, version: number): DefinitionResponseT {
    const v = this.repos.workflows.version(id, version)!
    return {
      workflow_id: id,
      state: 'published',
      version,
      definition: JSON.parse(v.definition) as Definition,
      config: JSON.parse(v.config) as AgentConfig,
      updated_at: iso(v.published_at),
    }
  }

  private row(p: Principal, id: string): WorkflowRow {
    const row = this.repos.workflows.get(scope(p), id)
    if (!row) throw new ApiError('not_found')
    return row
  }

  private environment(p: Principal): EnvironmentRow {
    return this.repos.projects.environment(p.organizationId, p.environmentId)!
  }

  private resolveTarget(p: Principal, source: EnvironmentRow, target: string): EnvironmentRow {
    const value = target.toLowerCase()
    const found =
      value === 'dev' || value === 'staging' || value === 'prod'
        ? this.repos.projects.environments(p.organizationId, source.project_id).find((e) => e.slug === value)
        : this.repos.projects.environment(p.organizationId, value)
    if (!found) throw new ApiError('unknown_environment')
    return found
  }
}

function summary(r: WorkflowSummaryRow, env: EnvironmentRow): WorkflowSummaryT {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    environment: { id: env.id, slug: env.slug },
    archived: r.archived_at !== null,
    published_version: r.latest_version,
    template_id: r.template_id,
    source_workflow_id: r.source_workflow_id,
    draft_updated_at: iso(r.draft_updated_at),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  }
}
