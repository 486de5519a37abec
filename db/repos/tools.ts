import type { Db } from '../database.js'

export interface ToolRow {
  id: string
  organization_id: string
  name: string
  latest_version: number
  created_by: string | null
  created_at: number
  updated_at: number
  deleted_at: number | null
}

export interface ToolVersionRow {
  tool_id: string
  version: number
  name: string
  description: string
  parameters: string
  runs: string
  secret_headers_sealed: Buffer | null
  key_id: string | null
  /** JSON array of the secret headers' names. */
  secret_header_names: string
  created_by: string | null
  created_at: number
}

/** A version to write; the repository numbers it. */
export type NewToolVersion = Omit<ToolVersionRow, 'tool_id' | 'version'>

/** A tool with its newest version, as the API shows it. */
export type ToolWithVersion = ToolRow & { version: ToolVersionRow }

/**
 * The organization's tool library (016_tools.sql). Every read is bound to one organization; the
 * API sees live tools only, the runtime may also resolve a deleted tool's pinned version.
 */
export class ToolsRepo {
  private readonly insertTool
  private readonly insertVersion
  private readonly bumpStmt
  private readonly getStmt
  private readonly listStmt
  private readonly countStmt
  private readonly versionStmt
  private readonly versionsStmt
  private readonly deleteStmt
  private readonly nameTakenStmt

  constructor(private readonly db: Db) {
    this.insertTool = db.prepare(
      `INSERT INTO tools (id, organization_id, name, latest_version, created_by, created_at, updated_at)
       VALUES (@id, @organization_id, @name, 1, @created_by, @created_at, @created_at)`,
    )
    this.insertVersion = db.prepare(
      `INSERT INTO tool_versions (tool_id, version, name, description, parameters, runs, secret_headers_sealed, key_id, secret_header_names, created_by, created_at)
       VALUES (@tool_id, @version, @name, @description, @parameters, @runs, @secret_headers_sealed, @key_id, @secret_header_names, @created_by, @created_at)`,
    )
    this.bumpStmt = db.prepare<[string, number, string, string]>(
      'UPDATE tools SET latest_version = latest_version + 1, name = ?, updated_at = ? WHERE id = ? AND organization_id = ? AND deleted_at IS NULL RETURNING latest_version',
    )
    this.getStmt = db.prepare<[string, string], ToolRow>('SELECT * FROM tools WHERE id = ? AND organization_id = ?')
    this.listStmt = db.prepare<[string], ToolRow>('SELECT * FROM tools WHERE organization_id = ? AND deleted_at IS NULL ORDER BY name')
    this.countStmt = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM tools WHERE organization_id = ? AND deleted_at IS NULL')
    this.versionStmt = db.prepare<[string, number], ToolVersionRow>('SELECT * FROM tool_versions WHERE tool_id = ? AND version = ?')
    this.versionsStmt = db.prepare<[string, number, number], ToolVersionRow>(
      'SELECT * FROM tool_versions WHERE tool_id = ? AND version < ? ORDER BY version DESC LIMIT ?',
    )
    this.deleteStmt = db.prepare<[number, number, string, string]>(
      'UPDATE tools SET deleted_at = ?, updated_at = ? WHERE id = ? AND organization_id = ? AND deleted_at IS NULL',
    )
    this.nameTakenStmt = db.prepare<[string, string, string], { id: string }>(
      'SELECT id FROM tools WHERE organization_id = ? AND name = ? AND deleted_at IS NULL AND id != ?',
    )
  }

  /** Creates the tool with its version 1. */
  create(tool: { id: string; organization_id: string; created_by: string | null; created_at: number }, v: NewToolVersion): void {
    this.db.transaction(() => {
      this.insertTool.run({ ...tool, name: v.name })
      this.insertVersion.run({ ...v, tool_id: tool.id, version: 1 })
    })()
  }

  /** Writes the next version of a live tool; undefined when there is no such live tool. */
  addVersion(organizationId: string, id: string, v: NewToolVersion): number | undefined {
    return this.db.transaction(() => {
      const bumped = this.bumpStmt.get(v.name, v.created_at, id, organizationId) as { latest_version: number } | undefined
      if (!bumped) return undefined
      this.insertVersion.run({ ...v, tool_id: id, version: bumped.latest_version })
      return bumped.latest_version
    })()
  }

  /** A live tool of the organization. */
  get(organizationId: string, id: string): ToolRow | undefined {
    const row = this.getStmt.get(id, organizationId)
    return row && row.deleted_at === null ? row : undefined
  }

  /** A tool of the organization, deleted or not (a published agent may be pinned to a deleted tool). */
  getIncludingDeleted(organizationId: string, id: string): ToolRow | undefined {
    return this.getStmt.get(id, organizationId)
  }

  list(organizationId: string): ToolRow[] {
    return this.listStmt.all(organizationId)
  }

  countLive(organizationId: string): number {
    return this.countStmt.get(organizationId)!.n
  }

  /** Whether another live tool of the organization has the name. */
  nameTaken(organizationId: string, name: string, exceptId = ''): boolean {
    return this.nameTakenStmt.get(organizationId, name, exceptId) !== undefined
  }

  /** One version of a tool; the caller has checked the tool belongs to the organization. */
  version(toolId: string, version: number): ToolVersionRow | undefined {
    return this.versionStmt.get(toolId, version)
  }

  /** Versions newest first, those below `before`. */
  versions(toolId: string, limit: number, before = Number.MAX_SAFE_INTEGER): ToolVersionRow[] {
    return this.versionsStmt.all(toolId, before, limit)
  }

  softDelete(organizationId: string, id: string, now: number): boolean {
    return this.deleteStmt.run(now, now, id, organizationId).changes === 1
  }
}
