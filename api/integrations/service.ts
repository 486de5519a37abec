import { performance } from 'node:perf_hooks'
import { z } from 'zod'
import type { GuardOptions, Logger } from '../../core/index.js'
import type { Repos } from '../../db/index.js'
import type { ToolOutcome, ToolRunner } from '../../engine/graph-runtime/index.js'
import type { Auditor } from '../audit/auditor.js'
import { CredentialDecryptError } from '../credentials/crypto.js'
import { credentialProvider } from '../credentials/providers.js'
import type { CredentialService } from '../credentials/service.js'
import { ApiError } from '../http/errors.js'
import type { RequestInfo } from '../http/route.js'
import { toDetail, ValidationError } from '../http/validation.js'
import { OutboundError, outboundRequest } from '../security/outbound-request.js'
import type { Principal } from '../security/principal.js'
import type { ActionContext, ActionDef, ActionResult, IntegrationDef } from './action.js'
import { findIntegration, INTEGRATIONS } from './catalog.js'
import { MAX_TIMEOUT_MS } from './http.js'
import type { IntegrationResponseT, RunActionRequestT, RunActionResponseT } from './schema.js'

/** Largest provider response read (Slack, Cal.com and HubSpot answers are a few KiB). */
export const PROVIDER_MAX_RESPONSE_BYTES = 256 * 1024

export interface IntegrationDeps {
  repos: Repos
  credentials: CredentialService
  auditor: Auditor
  logger: Logger
  /** The outbound guard (OZAN_ALLOW_PRIVATE_CIDRS, this server's own addresses, the resolver). */
  guard: GuardOptions
  /** OZAN_INTEGRATION_TIMEOUT_MS: default deadline of one provider request. */
  timeoutMs: number
}

/** Why an action cannot start; the API and the tool runner word it each their own way. */
type Problem =
  | { kind: 'unknown_integration' }
  | { kind: 'unknown_action'; names: string[] }
  | { kind: 'invalid_input'; error: z.ZodError }
  | { kind: 'credential_missing'; provider: string; message: string }
type Ready = { integration: IntegrationDef; action: ActionDef; input: unknown; credential: Readonly<Record<string, string>> | null }

/** The integration catalog, and running its actions with the organization's stored credentials. */
export class IntegrationService {
  private readonly schemas = new Map<ActionDef, Record<string, unknown>>()

  constructor(private readonly deps: IntegrationDeps) {
    for (const i of INTEGRATIONS)
      for (const a of i.actions)
        this.schemas.set(a, z.toJSONSchema(a.input, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>)
  }

  list(by: Principal): IntegrationResponseT[] {
    const stored = new Set(this.deps.repos.credentials.list(by.organizationId).map((r) => r.provider))
    return INTEGRATIONS.map((i) => {
      const provider = i.provider ? credentialProvider(i.provider) : undefined
      const credential = provider
        ? {
            provider: provider.key,
            name: provider.name,
            fields: provider.fields.map((f) => ({ name: f.name, required: f.required, secret: f.kind === 'secret', description: f.description })),
            stored: stored.has(provider.key),
          }
        : null
      return {
        key: i.key,
        name: i.name,
        description: i.description,
        credential,
        ready: credential === null || credential.stored,
        actions: i.actions.map((a) => ({ name: a.name, description: a.description, input_schema: this.schemas.get(a)!, output: a.output })),
      }
    })
  }

  /** JSON Schema and description of an action, for offering it to an LLM as a tool. */
  describeAction(ref: { integration: string; action: string }): { description: string; parameters: Record<string, unknown> } | undefined {
    const action = findIntegration(ref.integration)?.actions.find((a) => a.name === ref.action)
    return action && { description: action.description, parameters: this.schemas.get(action)! }
  }

  /** POST /integrations/{key}/run: 404, 422 or 400 before anything is sent; then the outcome, audited. */
  async run(by: Principal, key: string, body: RunActionRequestT, req: RequestInfo): Promise<RunActionResponseT> {
    const ready = this.prepare(by.organizationId, key, body.action, body.input)
    if ('kind' in ready) throw this.apiError(ready, body)
    const { result, durationMs } = await this.execute(by.organizationId, ready, new AbortController().signal)
    this.deps.auditor.record(by, req, {
      action: 'integration.action_run',
      resourceType: 'integration',
      resourceId: key,
      outcome: result.ok ? 'success' : 'failure',
      // Never the input or output: they may hold personal data or the caller's own tokens.
      metadata: { action: body.action, ok: result.ok, duration_ms: durationMs, ...(!result.ok && { error_code: result.error.code }) },
    })
    return { ok: result.ok, output: result.output ?? null, ...(!result.ok && { error: result.error }), duration_ms: durationMs }
  }

  /** The same actions for graph `tool` nodes and LLM tools, as the organization. */
  runnerFor(organizationId: string): ToolRunner {
    return {
      run: async (ref, input, signal): Promise<ToolOutcome> => {
        const ready = this.prepare(organizationId, ref.integration, ref.action, input)
        if ('kind' in ready) return { ok: false, error: this.toolError(ready, ref) }
        const { result } = await this.execute(organizationId, ready, signal)
        return result.ok ? { ok: true, output: result.output } : { ok: false, error: `${result.error.code}: ${result.error.message}` }
      },
    }
  }

  private prepare(organizationId: string, key: string, actionName: string, rawInput: unknown): Ready | Problem {
    const integration = findIntegration(key)
    if (!integration) return { kind: 'unknown_integration' }
    const action = integration.actions.find((a) => a.name === actionName)
    if (!action) return { kind: 'unknown_action', names: integration.actions.map((a) => a.name) }
    const parsed = action.input.safeParse(rawInput ?? {})
    if (!parsed.success) return { kind: 'invalid_input', error: parsed.error }
    if (!integration.provider) return { integration, action, input: parsed.data, credential: null }
    const provider = integration.provider
    const needed = credentialProvider(provider)!
      .fields.filter((f) => f.required)
      .map((f) => f.name)
      .join(', ')
    try {
      const credential = this.deps.credentials.reveal(organizationId, provider)
      if (credential) return { integration, action, input: parsed.data, credential }
      return {
        kind: 'credential_missing',
        provider,
        message: `The ${integration.key} integration needs the organization's "${provider}" credential (${needed}); store it with PUT /api/v1/credentials.`,
      }
    } catch (err) {
      if (!(err instanceof CredentialDecryptError)) throw err
      return {
        kind: 'credential_missing',
        provider,
        message: `The stored "${provider}" credential cannot be decrypted; store it again with PUT /api/v1/credentials.`,
      }
    }
  }

  private async execute(organizationId: string, r: Ready, signal: AbortSignal): Promise<{ result: ActionResult; durationMs: number }> {
    const started = performance.now()
    const ctx: ActionContext = {
      credential: r.credential,
      signal,
      request: (request, o = {}) =>
        outboundRequest(request, {
          ...this.deps.guard,
          timeoutMs: Math.min(o.timeoutMs ?? this.deps.timeoutMs, MAX_TIMEOUT_MS),
          maxResponseBytes: o.maxResponseBytes ?? PROVIDER_MAX_RESPONSE_BYTES,
          signal,
        }),
    }
    let result: ActionResult
    try {
      result = await r.action.run(r.input, ctx)
    } catch (err) {
      if (err instanceof OutboundError) result = { ok: false, error: { code: err.code, message: err.message } }
      else {
        this.deps.logger.error({ err, integration: r.integration.key, action: r.action.name }, 'integration action failed unexpectedly')
        result = { ok: false, error: { code: 'internal_error', message: 'The action failed unexpectedly.' } }
      }
    }
    const durationMs = Math.round(performance.now() - started)
    const outcome = { organization_id: organizationId, integration: r.integration.key, action: r.action.name, ok: result.ok, duration_ms: durationMs }
    this.deps.logger.info(result.ok ? outcome : { ...outcome, error_code: result.error.code }, 'integration action run')
    return { result, durationMs }
  }

  private apiError(p: Problem, body: RunActionRequestT): Error {
    switch (p.kind) {
      case 'unknown_integration':
        return new ApiError('not_found')
      case 'unknown_action':
        return new ValidationError([
          {
            type: 'enum',
            loc: ['body', 'action'],
            msg: `Input should be ${p.names.map((n) => `'${n}'`).join(', ')}`,
            input: body.action,
            ctx: { expected: p.names.join(', ') },
          },
        ])
      case 'invalid_input':
        // Located under body.input, where the caller put the offending value.
        return new ValidationError(toDetail('body', p.error, body.input).map((e) => ({ ...e, loc: ['body', 'input', ...e.loc.slice(1)] })))
      case 'credential_missing':
        return new ApiError('credential_missing', p.message)
    }
  }

  private toolError(p: Problem, ref: { integration: string; action: string }): string {
    switch (p.kind) {
      case 'unknown_integration':
        return `unknown_integration: there is no integration ${ref.integration}`
      case 'unknown_action':
        return `unknown_action: ${ref.integration} has no action ${ref.action} (it has ${p.names.join(', ')})`
      case 'invalid_input':
        return `invalid_input: ${p.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`
      case 'credential_missing':
        return `credential_missing: ${p.message}`
    }
  }
}
