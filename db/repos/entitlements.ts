import type { Db } from '../database.js'

export interface OrganizationPlanRow {
  organization_id: string
  plan_key: string
  assigned_at: number
  note: string | null
}

export interface FeatureFlagRow {
  organization_id: string
  key: string
  enabled: number
  description: string | null
  updated_by: string | null
  created_at: number
  updated_at: number
}

/** What an organization holds now of each thing a plan limits (see api/entitlements/quota.ts). */
export interface OrganizationUsage {
  /** Agents not deleted (archived ones count: they can be unarchived at any time). */
  agents: number
  members: number
  /** Invitations still open (not accepted, not expired): each may become a member. */
  pendingInvitations: number
  knowledgeBaseDocuments: number
  knowledgeBaseBytes: number
  webhookEndpoints: number
  /** Keys that have not expired. */
  apiKeys: number
}

/**
 * Plan assignments, feature flags, and the counts plans are checked against. Every read is bound
 * to one organization; the unscoped reads (assignedPlanKeys, assignments) serve the operator's
 * start-up check and command line only.
 */
export class EntitlementsRepo {
  private readonly planStmt
  private readonly assignStmt
  private readonly unassignStmt
  private readonly assignedKeysStmt
  private readonly assignmentsStmt
  private readonly flagsStmt
  private readonly flagStmt
  private readonly flagCountStmt
  private readonly upsertFlagStmt
  private readonly usageStmt
  private readonly voiceMsStmt
  private readonly pendingForStmt

  constructor(db: Db) {
    this.planStmt = db.prepare<[string], OrganizationPlanRow>('SELECT * FROM organization_plans WHERE organization_id = ?')
    this.assignStmt = db.prepare(
      `INSERT INTO organization_plans (organization_id, plan_key, assigned_at, note) VALUES (@organization_id, @plan_key, @assigned_at, @note)
       ON CONFLICT (organization_id) DO UPDATE SET plan_key = excluded.plan_key, assigned_at = excluded.assigned_at, note = excluded.note`,
    )
    this.unassignStmt = db.prepare('DELETE FROM organization_plans WHERE organization_id = ?')
    this.assignedKeysStmt = db.prepare<[], { plan_key: string; n: number }>(
      'SELECT plan_key, count(*) AS n FROM organization_plans GROUP BY plan_key ORDER BY plan_key',
    )
    this.assignmentsStmt = db.prepare<[], OrganizationPlanRow & { name: string }>(
      `SELECT p.*, o.name FROM organization_plans p JOIN organizations o ON o.id = p.organization_id ORDER BY p.plan_key, o.name, o.id`,
    )
    this.flagsStmt = db.prepare<[string], FeatureFlagRow>('SELECT * FROM feature_flags WHERE organization_id = ? ORDER BY key')
    this.flagStmt = db.prepare<[string, string], FeatureFlagRow>('SELECT * FROM feature_flags WHERE organization_id = ? AND key = ?')
    this.flagCountStmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM feature_flags WHERE organization_id = ?')
    // The description is kept when an upsert leaves it out (NULL in @description and @keep_description).
    this.upsertFlagStmt = db.prepare(
      `INSERT INTO feature_flags (organization_id, key, enabled, description, updated_by, created_at, updated_at)
       VALUES (@organization_id, @key, @enabled, @description, @updated_by, @now, @now)
       ON CONFLICT (organization_id, key) DO UPDATE SET enabled = excluded.enabled,
         description = CASE WHEN @keep_description = 1 THEN feature_flags.description ELSE excluded.description END,
         updated_by = excluded.updated_by, updated_at = excluded.updated_at
       RETURNING *`,
    )
    this.usageStmt = db.prepare<{ org: string; now: number }, OrganizationUsage>(
      `SELECT
         (SELECT count(*) FROM workflows WHERE organization_id = @org AND deleted_at IS NULL) AS agents,
         (SELECT count(*) FROM org_members WHERE organization_id = @org) AS members,
         (SELECT count(*) FROM invitations WHERE organization_id = @org AND accepted_at IS NULL AND expires_at > @now) AS pendingInvitations,
         (SELECT count(*) FROM knowledge_documents WHERE organization_id = @org) AS knowledgeBaseDocuments,
         (SELECT coalesce(sum(size_bytes), 0) FROM knowledge_documents WHERE organization_id = @org) AS knowledgeBaseBytes,
         (SELECT count(*) FROM webhook_endpoints WHERE organization_id = @org) AS webhookEndpoints,
         (SELECT count(*) FROM api_keys WHERE organization_id = @org AND (expires_at IS NULL OR expires_at > @now)) AS apiKeys`,
    )
    // A voice call counts from when it connected (activation resets started_at) to its end, or to
    // now while live, clipped to [since, now]. Calls still pending, and failed calls without a
    // turn (never connected: not_connected, busy, no_answer, refused…), count nothing.
    this.voiceMsStmt = db.prepare<{ org: string; since: number; now: number }, { ms: number }>(
      `SELECT coalesce(sum(max(0, min(coalesce(ended_at, @now), @now) - max(started_at, @since))), 0) AS ms
       FROM sessions
       WHERE organization_id = @org AND channel IN ('web', 'phone') AND status <> 'pending'
         AND NOT (status = 'failed' AND turn_count = 0)
         AND started_at < @now AND coalesce(ended_at, @now) > @since`,
    )
    // invitations.email is COLLATE NOCASE, as the unique pending index that replace() relies on.
    this.pendingForStmt = db.prepare('SELECT 1 FROM invitations WHERE organization_id = @org AND email = @email AND accepted_at IS NULL AND expires_at > @now')
  }

  /** Whether an open invitation to `email` exists (inviting the address again replaces it). */
  hasPendingInvitation(organizationId: string, email: string, now: number): boolean {
    return this.pendingForStmt.get({ org: organizationId, email, now }) !== undefined
  }

  planOf(organizationId: string): OrganizationPlanRow | undefined {
    return this.planStmt.get(organizationId)
  }
  assignPlan(row: OrganizationPlanRow): void {
    this.assignStmt.run(row)
  }
  /** False when the organization had no assignment (it was on the default plan already). */
  unassignPlan(organizationId: string): boolean {
    return this.unassignStmt.run(organizationId).changes === 1
  }
  /** Each plan key organizations are assigned to, with how many. */
  assignedPlanKeys(): { plan_key: string; n: number }[] {
    return this.assignedKeysStmt.all()
  }
  assignments(): (OrganizationPlanRow & { name: string })[] {
    return this.assignmentsStmt.all()
  }

  flags(organizationId: string): FeatureFlagRow[] {
    return this.flagsStmt.all(organizationId)
  }
  flag(organizationId: string, key: string): FeatureFlagRow | undefined {
    return this.flagStmt.get(organizationId, key)
  }
  countFlags(organizationId: string): number {
    return this.flagCountStmt.get(organizationId)!.n
  }
  /** `description` undefined keeps the stored one (null clears it). */
  upsertFlag(f: {
    organizationId: string
    key: string
    enabled: boolean
    description: string | null | undefined
    updatedBy: string | null
    now: number
  }): FeatureFlagRow {
    return this.upsertFlagStmt.get({
      organization_id: f.organizationId,
      key: f.key,
      enabled: f.enabled ? 1 : 0,
      description: f.description ?? null,
      keep_description: f.description === undefined ? 1 : 0,
      updated_by: f.updatedBy,
      now: f.now,
    }) as FeatureFlagRow
  }

  usage(organizationId: string, now: number): OrganizationUsage {
    return this.usageStmt.get({ org: organizationId, now })!
  }
  /** Milliseconds of voice calls (web and phone) between `since` and `now`. */
  voiceMs(organizationId: string, since: number, now: number): number {
    return this.voiceMsStmt.get({ org: organizationId, since, now })!.ms
  }
}
