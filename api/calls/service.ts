import type { Clock, Config } from '../../core/index.js'
import type { Repos } from '../../db/index.js'
import { InProcessLiveCalls, MAX_VARIABLES_BYTES, WebCallTokenError, WebCallTokens, type LiveCalls } from '../../engine/calls/index.js'
import { ApiError } from '../http/errors.js'
import { ValidationError } from '../http/validation.js'
import type { Principal } from '../security/principal.js'
import type { SessionService } from '../sessions/service.js'

/** What web calls share between the API (minting) and the engine (admitting): one of each per process. */
export interface WebCalls {
  tokens: WebCallTokens
  liveCalls: LiveCalls
  /** The ws(s):// base URL of the engine's socket path, without query (the engine's bound port once it runs). */
  wsUrl(): string
  /** Told the port the engine bound (the default wsUrl() names it). */
  bound?(port: number): void
}

/** The process's own web-call state: tokens signed with the platform key, an in-process cap. */
export function localWebCalls(o: { config: Config; key: Uint8Array; repo: Repos['webCallTokens']; clock: Clock }): WebCalls {
  const { config } = o
  let port = config.enginePort
  const host = config.engineHost === '0.0.0.0' || config.engineHost === '::' ? 'localhost' : config.engineHost
  return {
    tokens: new WebCallTokens({ key: o.key, repo: o.repo, clock: o.clock, ttlS: config.webCallTokenTtlS }),
    liveCalls: new InProcessLiveCalls(() => config.maxLiveCallsPerOrg),
    wsUrl: () => `${config.enginePublicUrl ?? `ws://${host.includes(':') ? `[${host}]` : host}:${port}`}${WEB_CALL_PATH}`,
    bound(p) {
      port = p
    },
  }
}

export const WEB_CALL_PATH = '/v1/calls/ws'

export class CallService {
  constructor(private readonly d: { sessions: SessionService; webCalls: WebCalls; clock: Clock }) {}

  /** A single-use token for one browser call of a published agent of the caller's environment. */
  async webToken(p: Principal, body: { workflow_uuid: string; variables?: Record<string, unknown> | undefined }) {
    const scope = { organizationId: p.organizationId, environmentId: p.environmentId }
    const { workflow } = this.d.sessions.published(scope, body.workflow_uuid)
    if (!this.d.webCalls.liveCalls.hasRoom(p.organizationId)) throw new ApiError('concurrency_limit')
    let minted
    try {
      minted = await this.d.webCalls.tokens.mint({ ...scope, workflowId: workflow.id, ...(body.variables !== undefined && { variables: body.variables }) })
    } catch (err) {
      if (err instanceof WebCallTokenError && err.code === 'variables_too_large') {
        throw new ValidationError([{ type: 'too_big', loc: ['body', 'variables'], msg: err.message, ctx: { max_bytes: MAX_VARIABLES_BYTES } }])
      }
      throw err
    }
    return { token: minted.token, ws_url: `${this.d.webCalls.wsUrl()}?token=${encodeURIComponent(minted.token)}&v=1`, expires_at: new Date(minted.expiresAt).toISOString() }
  }
}
