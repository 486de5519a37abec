import type { Db } from '../database.js'

export interface AutomationRow {
  id: string
  organization_id: string
  environment_id: string
  name: string
  description: string | null
  event_type: string
  /** JSON Logic expression as JSON text, or null (every event of the type). */
  filter: string | null
  integration: string
  action: string
  /** The action's input mapping as JSON text. */
  input: string
  enabled: number
  created_by: string | null
  created_at: number
  updated_at: number
}

export type AutomationChanges = Partial<
  Pick<AutomationRow, 'name' | 'description' | 'event_type' | 'filter' | 'integration' | 'action' | 'input' | 'enabled' | 'updated_at'>
>

export interface AutomationScope {
  organizationId: string
  environmentId: string
}

const CHANGEABLE = ['name', 'description', 'event_type', 'filter', 'integration', 'action', 'input', 'enabled', 'updated_at'] as const

/**
 * Automations (migration 017). Reads by id take the organization and environment, so one tenant's
 * ids never reach another; `triggered` and `byId` serve the worker, which works on rows already
 * bound to their tenant.
 */
export class AutomationsRepo {
  private readonly s

  constructor(private readonly db: Db) {
    const p = <P extends unknown[] | object = unknown[], R = unknown>(sql: string) => db.prepare<P, R>(sql)
    this.s = {
      insert: p<[AutomationRow], AutomationRow>(
        `INSERT INTO automations (id, organization_id, environment_id, name, description, event_type, filter, integration, action, input,
           enabled, created_by, created_at, updated_at)
         VALUES (@id, @organization_id, @environment_id, @name, @description, @event_type, @filter, @integration, @action, @input,
           @enabled, @created_by, @created_at, @updated_at)
         RETURNING *`,
      ),
      get: p<[string, string, string], AutomationRow>('SELECT * FROM automations WHERE id = ? AND organization_id = ? AND environment_id = ?'),
      byId: p<[string], AutomationRow>('SELECT * FROM automations WHERE id = ?'),
      list: p<[string, string], AutomationRow>('SELECT * FROM automations WHERE organization_id = ? AND environment_id = ? ORDER BY created_at, id'),
      count: p<[string, string], { n: number }>('SELECT count(*) AS n FROM automations WHERE organization_id = ? AND environment_id = ?'),
      // Organization-wide events (no environment) reach the automations of every environment.
      triggered: p<[string, string, string | null, string | null], AutomationRow>(
        `SELECT * FROM automations WHERE organization_id = ? AND event_type = ? AND enabled = 1 AND (? IS NULL OR environment_id = ?) ORDER BY created_at, id`,
      ),
      remove: p<[string, string, string]>('DELETE FROM automations WHERE id = ? AND organization_id = ? AND environment_id = ?'),
    }
  }

  insert(row: AutomationRow): AutomationRow {
    return this.s.insert.get(row)!
  }

  get(scope: AutomationScope, id: string): AutomationRow | undefined {
    return this.s.get.get(id, scope.organizationId, scope.environmentId)
  }

  byId(id: string): AutomationRow | undefined {
    return this.s.byId.get(id)
  }

  list(scope: AutomationScope): AutomationRow[] {
    return this.s.list.all(scope.organizationId, scope.environmentId)
  }

  count(scope: AutomationScope): number {
    return this.s.count.get(scope.organizationId, scope.environmentId)!.n
  }

  /** Enabled automations an event of `eventType` in `environmentId` (null: organization-wide) triggers. */
  triggered(organizationId: string, environmentId: string | null, eventType: string): AutomationRow[] {
    return this.s.triggered.all(organizationId, eventType, environmentId, environmentId)
  }

  update(scope: AutomationScope, id: string, changes: AutomationChanges): AutomationRow | undefined {
    const keys = CHANGEABLE.filter((k) => changes[k] !== undefined)
    if (keys.length) {
      const sql = `UPDATE automations SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id AND organization_id = @org AND environment_id = @env`
      const values = Object.fromEntries(keys.map((k) => [k, changes[k]]))
      this.db.prepare(sql).run({ ...values, id, org: scope.organizationId, env: scope.environmentId })
    }
    return this.get(scope, id)
  }

  remove(scope: AutomationScope, id: string): boolean {
    return this.s.remove.run(id, scope.organizationId, scope.environmentId).changes === 1
  }
}
