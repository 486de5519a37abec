import type { Db } from '../database.js'

export interface WorkflowRow {
  id: string
  organization_id: string
  environment_id: string
  lineage_id: string
  source_workflow_id: string | null
  name: string
  description: string
  template_id: string | null
  draft_definition: string
  draft_config: string
  draft_updated_at: number
  latest_version: number | null
  archived_at: number | null
  deleted_at: number | null
  created_by: string | null
  created_at: number
  updated_at: number
}

export interface WorkflowVersionRow {
  workflow_id: string
  version: number
  definition: string
  config: string
  published_at: number
  published_by: string | null
}

/** Which rows of a list one request reads: `LIMIT limit OFFSET offset` in SQL. */
export interface PageRequest {
  limit: number
  offset: number
}

/** An environment-scoped resource: every statement is bound to organization and environment. */
export interface Scope {
  organizationId: string
  environmentId: string
}

/** A workflow as listed: everything but its draft graph and config, which only the detail shows. */
export type WorkflowSummaryRow = Omit<WorkflowRow, 'draft_definition' | 'draft_config'>
const SUMMARY_COLUMNS = `id, organization_id, environment_id, lineage_id, source_workflow_id, name, description, template_id,
  draft_updated_at, latest_version, archived_at, deleted_at, created_by, created_at, updated_at`

const LIVE = 'organization_id = @org AND environment_id = @env AND deleted_at IS NULL'

export class WorkflowsRepo {
  private readonly insertStmt
  private readonly getStmt
  private readonly pageStmts
  private readonly countStmts
  private readonly setDraftStmt
  private readonly setArchivedStmt
  private readonly deleteStmt
  private readonly insertVersionStmt
  private readonly setLatestStmt
  private readonly versionsStmt
  private readonly versionStmt
  private readonly inLineageStmt

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO workflows (id, organization_id, environment_id, lineage_id, source_workflow_id, name, description, template_id,
         draft_definition, draft_config, draft_updated_at, created_by, created_at, updated_at)
       VALUES (@id, @organization_id, @environment_id, @lineage_id, @source_workflow_id, @name, @description, @template_id,
         @draft_definition, @draft_config, @created_at, @created_by, @created_at, @created_at)`,
    )
    this.getStmt = db.prepare(`SELECT * FROM workflows WHERE ${LIVE} AND id = @id`)
    // One statement per listing so `archived_at IS NULL` is an index equality (workflows_scope), not
    // a filter over every row; `id` breaks ties between agents created in the same millisecond.
    const listed = { live: `${LIVE} AND archived_at IS NULL`, archived: `${LIVE} AND archived_at IS NOT NULL` }
    this.pageStmts = {
      live: db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM workflows WHERE ${listed.live} ORDER BY created_at DESC, id LIMIT @limit OFFSET @offset`),
      archived: db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM workflows WHERE ${listed.archived} ORDER BY created_at DESC, id LIMIT @limit OFFSET @offset`),
    }
    this.countStmts = {
      live: db.prepare(`SELECT count(*) AS n FROM workflows WHERE ${listed.live}`),
      archived: db.prepare(`SELECT count(*) AS n FROM workflows WHERE ${listed.archived}`),
    }
    this.setDraftStmt = db.prepare(
      `UPDATE workflows SET draft_definition = coalesce(@definition, draft_definition), draft_config = coalesce(@config, draft_config),
         draft_updated_at = @now, updated_at = @now WHERE ${LIVE} AND id = @id`,
    )
    this.setArchivedStmt = db.prepare(`UPDATE workflows SET archived_at = @archived_at, updated_at = @now WHERE ${LIVE} AND id = @id`)
    this.deleteStmt = db.prepare(`UPDATE workflows SET deleted_at = @now, updated_at = @now WHERE ${LIVE} AND id = @id`)
    this.insertVersionStmt = db.prepare(
      `INSERT INTO workflow_versions (workflow_id, version, definition, config, published_at, published_by)
       VALUES (@workflow_id, @version, @definition, @config, @published_at, @published_by)`,
    )
    this.setLatestStmt = db.prepare('UPDATE workflows SET latest_version = @version, updated_at = @now WHERE id = @id')
    this.versionsStmt = db.prepare<[string], WorkflowVersionRow>('SELECT * FROM workflow_versions WHERE workflow_id = ? ORDER BY version DESC')
    this.versionStmt = db.prepare<[string, number], WorkflowVersionRow>('SELECT * FROM workflow_versions WHERE workflow_id = ? AND version = ?')
    this.inLineageStmt = db.prepare(
      'SELECT * FROM workflows WHERE organization_id = @org AND environment_id = @env AND lineage_id = @lineage AND deleted_at IS NULL',
    )
  }

  insert(row: Omit<WorkflowRow, 'draft_updated_at' | 'latest_version' | 'archived_at' | 'deleted_at' | 'updated_at'>): void {
    this.insertStmt.run(row)
  }
  get(s: Scope, id: string): WorkflowRow | undefined {
    return this.getStmt.get({ org: s.organizationId, env: s.environmentId, id }) as WorkflowRow | undefined
  }
  /** One page of the environment's agents (archived ones, or the others), newest first. */
  page(s: Scope, archived: boolean, at: PageRequest): { items: WorkflowSummaryRow[]; total: number } {
    const which = archived ? 'archived' : 'live'
    const scope = { org: s.organizationId, env: s.environmentId }
    return {
      items: this.pageStmts[which].all({ ...scope, limit: at.limit, offset: at.offset }) as WorkflowSummaryRow[],
      total: (this.countStmts[which].get(scope) as { n: number }).n,
    }
  }
  setDraft(s: Scope, id: string, draft: { definition?: string; config?: string }, now: number): void {
    this.setDraftStmt.run({ org: s.organizationId, env: s.environmentId, id, definition: draft.definition ?? null, config: draft.config ?? null, now })
  }
  setArchived(s: Scope, id: string, archived: boolean, now: number): void {
    this.setArchivedStmt.run({ org: s.organizationId, env: s.environmentId, id, archived_at: archived ? now : null, now })
  }
  softDelete(s: Scope, id: string, now: number): boolean {
    return this.deleteStmt.run({ org: s.organizationId, env: s.environmentId, id, now }).changes === 1
  }
  /** Snapshots the given definition and config as the next version; returns its number. */
  publish(row: WorkflowRow, definition: string, config: string, by: string | null, now: number): number {
    return this.db.transaction(() => {
      const version = (row.latest_version ?? 0) + 1
      this.insertVersionStmt.run({ workflow_id: row.id, version, definition, config, published_at: now, published_by: by })
      this.setLatestStmt.run({ id: row.id, version, now })
      return version
    })()
  }
  versions(workflowId: string): WorkflowVersionRow[] {
    return this.versionsStmt.all(workflowId)
  }
  version(workflowId: string, version: number): WorkflowVersionRow | undefined {
    return this.versionStmt.get(workflowId, version)
  }
  /** The live agent of this lineage in an environment, if any. */
  inLineage(organizationId: string, environmentId: string, lineageId: string): WorkflowRow | undefined {
    return this.inLineageStmt.get({ org: organizationId, env: environmentId, lineage: lineageId }) as WorkflowRow | undefined
  }
}
