/**
 * Web-call tokens: what POST /api/v1/calls/web-token returns and the engine's socket accepts.
 * An HS256 JWT signed with the platform token key, told apart from access tokens by its audience
 * and `typ` (so neither can pass as the other), short-lived, bound to one organization,
 * environment and workflow, and single-use through the web_call_tokens table.
 */
import { randomUUID } from 'node:crypto'
import { SignJWT, errors, jwtVerify } from 'jose'
import type { Clock } from '../../core/index.js'
import type { Repos } from '../../db/index.js'
import { CloseCode, CloseReason } from '../server/protocol.js'

const ISSUER = 'ozan'
/** The audience of tokens this platform's engines accept; a deployment may name its own. */
export const DEFAULT_ENGINE_AUDIENCE = 'ozan-engine'
const TYP = 'web-call'
export const MAX_WEB_CALL_TTL_S = 300
export const MAX_VARIABLES_BYTES = 8 * 1024
/** Rows stay this long past expiry so a late replay still reads "used", then they are pruned. */
const PRUNE_GRACE_MS = 60 * 60 * 1000
const PRUNE_EVERY_MS = 60 * 1000

export interface WebCallClaims {
  jti: string
  organizationId: string
  environmentId: string
  /** Null for a transient call (callId names it). */
  workflowId: string | null
  /** The pending call (POST /calls) the token opens; null for a token of POST /calls/web-token. */
  callId: string | null
  /** Epoch ms. */
  expiresAt: number
}

export interface MintRequest {
  organizationId: string
  environmentId: string
  workflowId: string | null
  callId?: string
  variables?: Record<string, unknown>
  ttlS?: number
}

type RefusalCode = typeof CloseCode.tokenInvalid | typeof CloseCode.tokenExpired | typeof CloseCode.tokenUsed | typeof CloseCode.tokenForeign
export interface TokenRefusal {
  ok: false
  closeCode: RefusalCode
  reason: (typeof CloseReason)[RefusalCode]
}
const refuse = (closeCode: RefusalCode): TokenRefusal => ({ ok: false, closeCode, reason: CloseReason[closeCode] })

export class WebCallTokenError extends Error {
  constructor(
    readonly code: 'variables_too_large' | 'invalid_ttl',
    message: string,
  ) {
    super(message)
    this.name = 'WebCallTokenError'
  }
}

export interface WebCallTokensOptions {
  key: Uint8Array
  repo: Repos['webCallTokens']
  clock: Clock
  /** Default lifetime (1 … 300 s, default 300). */
  ttlS?: number
  audience?: string
}

export class WebCallTokens {
  readonly ttlS: number
  private readonly audience: string
  private lastPrune = 0

  constructor(private readonly options: WebCallTokensOptions) {
    this.ttlS = options.ttlS ?? MAX_WEB_CALL_TTL_S
    this.audience = options.audience ?? DEFAULT_ENGINE_AUDIENCE
    checkTtl(this.ttlS)
  }

  async mint(r: MintRequest): Promise<{ token: string; jti: string; expiresAt: number }> {
    const ttlS = r.ttlS ?? this.ttlS
    checkTtl(ttlS)
    const variables = r.variables === undefined ? null : JSON.stringify(r.variables)
    if (variables !== null && Buffer.byteLength(variables) > MAX_VARIABLES_BYTES) {
      throw new WebCallTokenError('variables_too_large', `variables are at most ${MAX_VARIABLES_BYTES} bytes of JSON`)
    }
    const now = this.options.clock.now()
    const nowS = Math.floor(now / 1000)
    const expiresAt = (nowS + ttlS) * 1000
    const jti = randomUUID()
    if (r.workflowId === null && r.callId === undefined) throw new TypeError('a web-call token names a workflow or a call')
    const token = await new SignJWT({
      org: r.organizationId,
      env: r.environmentId,
      typ: TYP,
      ...(r.workflowId !== null && { wfl: r.workflowId }),
      ...(r.callId !== undefined && { cal: r.callId }),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setJti(jti)
      .setIssuer(ISSUER)
      .setAudience(this.audience)
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + ttlS)
      .sign(this.options.key)
    this.maybePrune(now)
    this.options.repo.insert({
      jti,
      organization_id: r.organizationId,
      environment_id: r.environmentId,
      workflow_id: r.workflowId,
      call_id: r.callId ?? null,
      variables,
      created_at: now,
      expires_at: expiresAt,
    })
    return { token, jti, expiresAt }
  }

  /** Checks signature, expiry and audience; does not use the token up. */
  async verify(token: string): Promise<{ ok: true; claims: WebCallClaims } | TokenRefusal> {
    let payload
    try {
      ;({ payload } = await jwtVerify(token, this.options.key, { algorithms: ['HS256'], currentDate: new Date(this.options.clock.now()) }))
    } catch (err) {
      if (err instanceof errors.JWTExpired) return refuse(CloseCode.tokenExpired)
      if (err instanceof errors.JOSEError) return refuse(CloseCode.tokenInvalid)
      throw err
    }
    // Genuinely signed with our key but minted for someone else: an access token, another engine.
    const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
    if (payload.iss !== ISSUER || payload.typ !== TYP || aud.length !== 1 || aud[0] !== this.audience) return refuse(CloseCode.tokenForeign)
    const { org, env, wfl, cal, jti, exp } = payload
    const optional = (v: unknown) => v === undefined || typeof v === 'string'
    if (
      typeof org !== 'string' ||
      typeof env !== 'string' ||
      typeof jti !== 'string' ||
      typeof exp !== 'number' ||
      !optional(wfl) ||
      !optional(cal) ||
      (wfl ?? cal) === undefined
    ) {
      return refuse(CloseCode.tokenInvalid)
    }
    const claims = {
      jti,
      organizationId: org,
      environmentId: env,
      workflowId: (wfl as string | undefined) ?? null,
      callId: (cal as string | undefined) ?? null,
      expiresAt: exp * 1000,
    }
    return { ok: true, claims }
  }

  /** Uses the token up. A token with no row of its binding was not minted by this platform: foreign. */
  consume(c: WebCallClaims): { ok: true; variables: Record<string, unknown> } | TokenRefusal {
    const r = this.options.repo.consume(
      { jti: c.jti, organization_id: c.organizationId, environment_id: c.environmentId, workflow_id: c.workflowId, call_id: c.callId },
      this.options.clock.now(),
    )
    if (!r.ok) return refuse(r.why === 'used' ? CloseCode.tokenUsed : r.why === 'expired' ? CloseCode.tokenExpired : CloseCode.tokenForeign)
    return { ok: true, variables: r.row.variables === null ? {} : (JSON.parse(r.row.variables) as Record<string, unknown>) }
  }

  private maybePrune(now: number): void {
    if (now - this.lastPrune < PRUNE_EVERY_MS) return
    this.lastPrune = now
    this.options.repo.prune(now - PRUNE_GRACE_MS)
  }
}

function checkTtl(ttlS: number): void {
  if (!Number.isInteger(ttlS) || ttlS < 1 || ttlS > MAX_WEB_CALL_TTL_S) {
    throw new WebCallTokenError('invalid_ttl', `web-call token lifetime must be 1 … ${MAX_WEB_CALL_TTL_S} s`)
  }
}
