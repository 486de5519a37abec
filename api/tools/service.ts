import { performance } from 'node:perf_hooks'
import { randomUUID } from 'node:crypto'
import { assertPublicUrl, DestinationRefusedError, type Clock, type GuardOptions, type Logger } from '../../core/index.js'
import type { NewToolVersion, Repos, ToolRow, ToolVersionRow } from '../../db/index.js'
import type { LibraryTool, ToolRunner } from '../../engine/graph-runtime/index.js'
import type { Auditor } from '../audit/auditor.js'
import { CredentialDecryptError } from '../credentials/crypto.js'
import { ApiError } from '../http/errors.js'
import type { RequestInfo } from '../http/route.js'
import { toDetail, ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import { pinLibraryTools } from './pinning.js'
import { runTool, type RunnableTool } from './runner.js'
import type { ToolSecretSealer } from './sealing.js'
import {
  TOOL_LIMITS,
  ToolCreate,
  type ToolCreateT,
  type ToolResponseT,
  type ToolRunsT,
  type ToolTestRequestT,
  type ToolTestResponseT,
  type ToolUpdateT,
  type ToolVersionResponseT,
} from './schema.js'

export interface ToolDeps {
  repos: Repos
  clock: Clock
  auditor: Auditor
  logger: Logger
  sealer: ToolSecretSealer
  /** The outbound guard: an HTTP tool's host is checked at save (and again by every run). */
  guard: GuardOptions
  /** The integration actions of an organization, through which every tool runs. */
  actionsFor: (organizationId: string) => ToolRunner
}

const iso = (ms: number) => new Date(ms).toISOString()

/** The organization's tool library: versioned CRUD, test runs, and the runtime's view of it. */
export class ToolService {
  constructor(private readonly deps: ToolDeps) {}

  list(p: Principal): ToolResponseT[] {
    return this.deps.repos.tools.list(p.organizationId).map((row) => this.view(row, this.deps.repos.tools.version(row.id, row.latest_version)!))
  }

  get(p: Principal, id: string, version?: number): ToolResponseT {
    const row = this.row(p, id)
    const v = this.deps.repos.tools.version(row.id, version ?? row.latest_version)
    if (!v) throw new ApiError('not_found')
    return this.view(row, v)
  }

  versions(p: Principal, id: string, limit: number, before?: number): ToolVersionResponseT[] {
    const row = this.row(p, id)
    return this.deps.repos.tools.versions(row.id, limit, before).map((v) => this.versionView(v))
  }

  async create(p: Principal, body: ToolCreateT): Promise<ToolResponseT> {
    await this.checkDestination(body.runs)
    const { repos, clock } = this.deps
    if (repos.tools.countLive(p.organizationId) >= TOOL_LIMITS.perOrganization) throw new ApiError('tool_limit')
    if (repos.tools.nameTaken(p.organizationId, body.name)) throw new ApiError('tool_name_taken')
    const id = randomUUID()
    const now = clock.now()
    repos.tools.create(
      { id, organization_id: p.organizationId, created_by: p.userId, created_at: now },
      this.newVersion(p, id, 1, body, body.secret_headers ?? {}, now),
    )
    return this.get(p, id)
  }

  /** Writes the next version: the stored one with the given fields replaced, checked whole again. */
  async update(p: Principal, id: string, body: ToolUpdateT): Promise<ToolResponseT> {
    this.row(p, id)
    // The one wait (a DNS lookup) comes first: from here to the write all runs synchronously, so
    // the version merged with is the one the new version follows (no update is lost in between).
    if (body.runs) await this.checkDestination(body.runs)
    const row = this.row(p, id)
    const current = this.deps.repos.tools.version(row.id, row.latest_version)!
    const runs = body.runs ?? (JSON.parse(current.runs) as ToolRunsT)
    const merged = {
      name: body.name ?? current.name,
      description: body.description ?? current.description,
      parameters: body.parameters ?? (JSON.parse(current.parameters) as Record<string, unknown>),
      runs,
      // Kept when not given; an integration tool has none (a switch from http drops them).
      secret_headers: body.secret_headers ?? (runs.type === 'integration' ? {} : this.secretsOf(p.organizationId, current)),
    }
    const checked = ToolCreate.safeParse(merged)
    if (!checked.success) throw new ValidationError(toDetail('body', checked.error, merged))
    const { repos, clock } = this.deps
    if (checked.data.name !== row.name && repos.tools.nameTaken(p.organizationId, checked.data.name, row.id)) throw new ApiError('tool_name_taken')
    const version = row.latest_version + 1
    const written = repos.tools.addVersion(
      p.organizationId,
      row.id,
      this.newVersion(p, row.id, version, checked.data, checked.data.secret_headers ?? {}, clock.now()),
    )
    if (written !== version) throw new Error(`tool ${row.id}: wrote version ${written}, sealed for ${version}`)
    return this.get(p, id)
  }

  /** Soft delete: gone from the API and from drafts; published agents pinned to it keep running it. */
  remove(p: Principal, id: string): void {
    if (!this.deps.repos.tools.softDelete(p.organizationId, id, this.deps.clock.now())) throw new ApiError('not_found')
  }

  /** POST /tools/{id}/test: one real run with the given arguments, audited (never the arguments or result). */
  async test(p: Principal, id: string, body: ToolTestRequestT, req: RequestInfo): Promise<ToolTestResponseT> {
    const row = this.row(p, id)
    const version = this.deps.repos.tools.version(row.id, body.version ?? row.latest_version)
    if (!version) throw new ApiError('not_found')
    const tool = this.runnable(p.organizationId, version)
    const started = performance.now()
    const outcome = await runTool(tool, body.arguments, this.deps.actionsFor(p.organizationId), new AbortController().signal)
    const durationMs = Math.round(performance.now() - started)
    const error = outcome.ok ? undefined : splitError(outcome.error)
    this.deps.auditor.record(p, req, {
      action: 'tool.test_run',
      resourceType: 'tool',
      resourceId: row.id,
      outcome: outcome.ok ? 'success' : 'failure',
      metadata: { version: version.version, ok: outcome.ok, duration_ms: durationMs, ...(error && { error_code: error.code }) },
    })
    return { ok: outcome.ok, output: outcome.ok ? (outcome.output ?? null) : null, ...(error && { error }), version: version.version, duration_ms: durationMs }
  }

  /**
   * The runtime's side of the library for an organization: a reference resolves to its pinned
   * version (even of a deleted tool: a published agent keeps what it was published with) or, when
   * unpinned, to the newest version of a live tool.
   */
  runnerFor(organizationId: string): Required<Pick<ToolRunner, 'resolve' | 'runLibrary'>> {
    return {
      resolve: (ref) => {
        const row =
          ref.version === undefined
            ? this.deps.repos.tools.get(organizationId, ref.tool_id)
            : this.deps.repos.tools.getIncludingDeleted(organizationId, ref.tool_id)
        const v = row && this.deps.repos.tools.version(row.id, ref.version ?? row.latest_version)
        if (!v) return undefined
        const runs = JSON.parse(v.runs) as ToolRunsT
        const runsWhat = runs.type === 'http' ? { integration: 'http', action: 'request' } : { integration: runs.integration, action: runs.action }
        return {
          id: v.tool_id,
          version: v.version,
          name: v.name,
          description: v.description,
          parameters: JSON.parse(v.parameters) as Record<string, unknown>,
          ...runsWhat,
        }
      },
      runLibrary: async (tool: LibraryTool, args, signal) => {
        const v = this.deps.repos.tools.version(tool.id, tool.version)
        if (!v || !this.deps.repos.tools.getIncludingDeleted(organizationId, tool.id))
          return { ok: false, error: `unknown_tool: the organization has no tool ${tool.id}` }
        let runnable: RunnableTool
        try {
          runnable = this.runnable(organizationId, v)
        } catch (err) {
          if (!(err instanceof ApiError)) throw err
          return { ok: false, error: `${err.code}: ${err.message}` }
        }
        const outcome = await runTool(runnable, args, this.deps.actionsFor(organizationId), signal)
        this.deps.logger.info({ organization_id: organizationId, tool_id: tool.id, version: tool.version, ok: outcome.ok }, 'library tool run')
        return outcome
      },
    }
  }

  /**
   * At publish: every library tool the graph names without a version gets the newest version of
   * now, so the published agent keeps the tool as it was. A tool the organization does not have
   * (or has deleted) is a 422 pointing at the reference.
   */
  pin(organizationId: string, definitionJson: string, at: (string | number)[]): string {
    const { repos } = this.deps
    const { json, problems } = pinLibraryTools(
      definitionJson,
      (ref) => {
        if (ref.version === undefined) return repos.tools.get(organizationId, ref.tool_id)?.latest_version ?? null
        const row = repos.tools.getIncludingDeleted(organizationId, ref.tool_id)
        return row && repos.tools.version(row.id, ref.version) ? ref.version : null
      },
      at,
    )
    if (problems.length) throw new ValidationError(problems.map((p) => ({ type: 'unknown_tool', ...p })))
    return json
  }

  private row(p: Principal, id: string): ToolRow {
    const row = this.deps.repos.tools.get(p.organizationId, id)
    if (!row) throw new ApiError('not_found')
    return row
  }

  private newVersion(p: Principal, toolId: string, version: number, v: ToolCreateT, secrets: Record<string, string>, now: number): NewToolVersion {
    const sealed = this.deps.sealer.seal({ organizationId: p.organizationId, toolId, version }, secrets)
    return {
      name: v.name,
      description: v.description,
      parameters: JSON.stringify(v.parameters),
      runs: JSON.stringify(v.runs),
      secret_headers_sealed: sealed?.sealed ?? null,
      key_id: sealed?.keyId ?? null,
      secret_header_names: JSON.stringify(Object.keys(secrets)),
      created_by: p.userId,
      created_at: now,
    }
  }

  private secretsOf(organizationId: string, v: ToolVersionRow): Record<string, string> {
    try {
      return this.deps.sealer.open({ organizationId, toolId: v.tool_id, version: v.version }, { sealed: v.secret_headers_sealed, keyId: v.key_id })
    } catch (err) {
      if (err instanceof CredentialDecryptError) throw new ApiError('tool_secrets_unreadable')
      throw err
    }
  }

  private runnable(organizationId: string, v: ToolVersionRow): RunnableTool {
    return {
      id: v.tool_id,
      version: v.version,
      name: v.name,
      parameters: JSON.parse(v.parameters) as Record<string, unknown>,
      runs: JSON.parse(v.runs) as ToolRunsT,
      secretHeaders: this.secretsOf(organizationId, v),
    }
  }

  /**
   * The save-time check of an HTTP tool's host (every run checks again, on the address it
   * connects to). A name that does not resolve now is accepted: it may resolve later.
   */
  private async checkDestination(runs: ToolRunsT): Promise<void> {
    if (runs.type !== 'http') return
    const origin = new URL(runs.url.replace(/\{\{[^}]*\}\}/g, 'x')).origin
    try {
      await assertPublicUrl(origin, this.deps.guard)
    } catch (err) {
      if (!(err instanceof DestinationRefusedError)) throw err
      if (err.reason === 'unresolvable') return
      throw new ValidationError([{ type: 'destination_refused', loc: ['body', 'runs', 'url'], msg: err.message, input: runs.url }])
    }
  }

  private versionView(v: ToolVersionRow): ToolVersionResponseT {
    return {
      id: v.tool_id,
      version: v.version,
      name: v.name,
      description: v.description,
      parameters: JSON.parse(v.parameters) as Record<string, unknown>,
      runs: JSON.parse(v.runs) as ToolRunsT,
      secret_header_names: JSON.parse(v.secret_header_names) as string[],
      created_at: iso(v.created_at),
      created_by: v.created_by,
    }
  }

  private view(row: ToolRow, v: ToolVersionRow): ToolResponseT {
    return { ...this.versionView(v), latest_version: row.latest_version, updated_at: iso(row.updated_at) }
  }
}

/** "code: message" (how tool outcomes word failures) as the API's error object. */
function splitError(error: string): { code: string; message: string } {
  const m = /^([a-zA-Z][\w.-]{0,63}): ([\s\S]*)$/.exec(error)
  return m ? { code: m[1]!, message: m[2]! } : { code: 'tool_failed', message: error }
}
