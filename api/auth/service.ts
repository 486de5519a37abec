import { randomUUID } from 'node:crypto'
import type { Clock, Logger } from '../../core/index.js'
import type { Repos, UserRow } from '../../db/index.js'
import { ApiError, type Lang } from '../http/errors.js'
import type { Auditor } from '../audit/auditor.js'
import type { RequestInfo } from '../http/route.js'
import type { Mailer } from '../mail/mailer.js'
import { BUILTIN_ROLE_IDS } from '../rbac/index.js'
import type { AccessTokens } from '../security/access-tokens.js'
import { hashPassword, verifyPassword } from '../security/passwords.js'
import type { AuthCache } from '../security/auth-cache.js'
import type { Principal } from '../security/principal.js'
import { randomToken, sha256Hex } from '../security/random.js'
import type { BucketRule, RateLimitStore } from '../security/rate-limit.js'
import { KnownSignInAddresses, LoginThrottle, type LoginAttempt } from './login-throttle.js'
import type { TokenResponseT, UserResponseT } from './schema.js'

export interface AccountSettings {
  refreshTokenTtlS: number
  verifyTokenTtlS: number
  resetTokenTtlS: number
  /** Failed sign-ins to one account from one client address. */
  loginPerAccountAddress: BucketRule
  /** Failed sign-ins to one account from every address together: the ceiling (see LoginThrottle). */
  loginPerAccount: BucketRule
  /** Failed sign-ins from one client address to any account. */
  loginPerAddress: BucketRule
}

export interface AccountDeps {
  repos: Repos
  authCache: AuthCache
  tokens: AccessTokens
  mailer: Mailer
  limiter: RateLimitStore
  auditor: Auditor
  clock: Clock
  logger: Logger
  settings: AccountSettings
}

const FORGOT_PER_EMAIL: BucketRule = { burst: 5, refillPerMin: 1 }

/** Registration, sign-in, email verification, password reset and dashboard sessions. */
export class AccountService {
  private readonly throttle: LoginThrottle

  constructor(private readonly deps: AccountDeps) {
    const { loginPerAccountAddress, loginPerAccount, loginPerAddress } = deps.settings
    this.throttle = new LoginThrottle(deps.limiter, new KnownSignInAddresses(deps.clock), {
      perAccountAddress: loginPerAccountAddress,
      perAccount: loginPerAccount,
      perAddress: loginPerAddress,
    })
  }

  async register(
    input: { email: string; password: string; name: string; organization_name?: string; locale: Lang },
    req: RequestInfo,
  ): Promise<TokenResponseT> {
    const { repos, clock } = this.deps
    if (repos.users.findByEmail(input.email)) throw new ApiError('email_taken')
    const passwordHash = await hashPassword(input.password)
    const now = clock.now()
    const userId = randomUUID()
    const orgId = repos.transaction(() => {
      try {
        repos.users.insert({ id: userId, email: input.email, name: input.name, password_hash: passwordHash, locale: input.locale, created_at: now })
      } catch (err) {
        // Two registrations of one email raced past the check above.
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new ApiError('email_taken')
        throw err
      }
      const org = repos.organizations.create(input.organization_name ?? `${input.name}'s organization`, userId, now)
      repos.organizations.addMember(org.id, userId, BUILTIN_ROLE_IDS.owner, now)
      this.sendVerification(repos.users.get(userId)!, input.locale)
      return org.id
    })
    this.deps.auditor.record({ organizationId: orgId, userId }, req, { action: 'user.registered', resourceType: 'user', resourceId: userId })
    this.throttle.provenAt(input.email, req.ip)
    return this.startSession(userId, orgId)
  }

  async login(email: string, password: string, req: RequestInfo): Promise<TokenResponseT> {
    const { repos } = this.deps
    const attempt = this.throttle.begin(email, req.ip)
    const user = repos.users.findByEmail(email.trim())
    const ok = await verifyPassword(user?.password_hash ?? null, password)
    if (!ok || !user) {
      this.deps.logger.info({ event: 'login_failed' }, 'failed sign-in')
      // Attributed to the account's first organization when the email is known; otherwise kept
      // with no organization (visible to operators only).
      // The actor is anonymous: nobody proved to be that user. The account is the resource.
      const orgId = user ? (repos.organizations.firstMembership(user.id)?.organization_id ?? null) : null
      this.deps.auditor.record({ organizationId: orgId, userId: null }, req, {
        action: 'session.login_failed',
        resourceType: 'user',
        resourceId: user?.id ?? null,
        outcome: 'failure',
      })
      this.recordLockouts(attempt, user?.id ?? null, orgId, req)
      throw new ApiError('invalid_credentials')
    }
    this.throttle.succeeded(attempt)
    if (attempt.pastCeiling) {
      this.deps.logger.info(
        { event: 'login_past_ceiling', user_id: user.id, address: req.ip },
        'sign-in from a known address while the account ceiling is spent',
      )
    }
    const membership = this.homeMembership(user.id)
    this.deps.auditor.record({ organizationId: membership.organization_id, userId: user.id }, req, {
      action: 'session.login',
      resourceType: 'user',
      resourceId: user.id,
    })
    return this.startSession(user.id, membership.organization_id)
  }

  /** A failure that empties a bucket starts a lockout: one warning and one audit event, not one per refusal after it. */
  private recordLockouts(attempt: LoginAttempt, userId: string | null, orgId: string | null, req: RequestInfo): void {
    for (const lockout of this.throttle.failed(attempt)) {
      this.deps.logger.warn(
        { event: 'login_lockout', scope: lockout.scope, retry_after_s: lockout.retryAfterS, user_id: userId, address: req.ip },
        'sign-in throttled after repeated failures',
      )
      this.deps.auditor.record({ organizationId: orgId, userId: null }, req, {
        action: 'session.login_throttled',
        resourceType: 'user',
        resourceId: userId,
        outcome: 'failure',
        metadata: { scope: lockout.scope, retry_after_s: lockout.retryAfterS },
      })
    }
  }

  async refresh(refreshToken: string, req: RequestInfo): Promise<TokenResponseT> {
    const { repos, clock } = this.deps
    const hash = sha256Hex(refreshToken)
    const row = repos.authSessions.findToken(hash)
    if (!row) throw new ApiError('authentication_required', 'The refresh token is not valid.')
    const session = repos.authSessions.get(row.session_id)!
    const now = clock.now()
    if (session.revoked_at !== null || session.expires_at <= now || !repos.organizations.membership(session.organization_id, session.user_id))
      throw new ApiError('authentication_required', 'The session has ended; sign in again.')
    const next = randomToken(32)
    if (row.used_at !== null || !repos.authSessions.rotate(hash, sha256Hex(next), session.id, now)) {
      // A used refresh token came back: it was stolen or replayed, so end the whole family.
      repos.authSessions.revoke(session.id, 'refresh_token_reuse', now)
      this.deps.logger.warn({ event: 'refresh_reuse', session_id: session.id }, 'refresh token reuse; session revoked')
      this.deps.auditor.record({ organizationId: session.organization_id, userId: session.user_id }, req, {
        action: 'session.refresh_reuse',
        resourceType: 'session',
        resourceId: session.id,
        outcome: 'failure',
      })
      throw new ApiError('authentication_required', 'The refresh token was already used; the session has been ended.')
    }
    return this.tokenResponse(session.user_id, session.organization_id, session.id, next, session.expires_at)
  }

  logout(principal: Principal): void {
    if (principal.sessionId) this.deps.repos.authSessions.revoke(principal.sessionId, 'logout', this.deps.clock.now())
  }

  async verifyEmail(token: string, req: RequestInfo): Promise<TokenResponseT> {
    const { repos, clock } = this.deps
    const row = repos.emailTokens.consume(sha256Hex(token), 'verify_email', clock.now())
    if (!row) throw new ApiError('invalid_token')
    repos.users.markVerified(row.user_id, clock.now())
    const membership = this.homeMembership(row.user_id)
    this.deps.auditor.record({ organizationId: membership.organization_id, userId: row.user_id }, req, {
      action: 'user.email_verified',
      resourceType: 'user',
      resourceId: row.user_id,
    })
    return this.startSession(row.user_id, membership.organization_id)
  }

  resendVerification(principal: Principal, locale: Lang | undefined): void {
    const user = this.deps.repos.users.get(principal.userId)
    if (!user || user.email_verified_at !== null) return
    this.sendVerification(user, locale ?? (user.locale as Lang))
  }

  /**
   * Answers the same way whether or not the email has an account. Both paths make a token and
   * hash it; only a known account stores it and queues a mail (two local inserts, no SMTP wait).
   */
  forgotPassword(email: string, locale: Lang | undefined, req: RequestInfo): void {
    const { repos, clock, settings, limiter } = this.deps
    const ip = req.ip
    // Throttled per email (whether or not it has an account, so a 429 reveals nothing) and per
    // address, so nobody can flood an inbox or the outbox.
    for (const [key, rule] of [
      [`forgot:email:${email.trim().toLowerCase()}`, FORGOT_PER_EMAIL],
      [`forgot:address:${ip}`, settings.loginPerAddress],
    ] as const) {
      const state = limiter.take(key, rule)
      if (!state.allowed) throw new ApiError('rate_limited', undefined, { 'Retry-After': String(state.retryAfterS) })
    }
    const token = randomToken(32)
    const hash = sha256Hex(token)
    const user = repos.users.findByEmail(email.trim())
    if (!user) return
    const now = clock.now()
    repos.emailTokens.insert({
      token_hash: hash,
      user_id: user.id,
      purpose: 'reset_password',
      created_at: now,
      expires_at: now + settings.resetTokenTtlS * 1000,
    })
    this.deps.mailer.queue('reset_password', user.email, locale ?? (user.locale as Lang), '/reset-password', token, settings.resetTokenTtlS)
    const orgId = repos.organizations.firstMembership(user.id)?.organization_id ?? null
    this.deps.auditor.record({ organizationId: orgId, userId: null }, req, {
      action: 'user.password_reset_requested',
      resourceType: 'user',
      resourceId: user.id,
    })
  }

  async resetPassword(token: string, password: string, req: RequestInfo): Promise<TokenResponseT> {
    const { repos, clock } = this.deps
    // The token is checked before the costly hash, so made-up tokens cost almost nothing.
    const row = repos.emailTokens.consume(sha256Hex(token), 'reset_password', clock.now())
    if (!row) throw new ApiError('invalid_token')
    const passwordHash = await hashPassword(password)
    const now = clock.now()
    repos.users.setPassword(row.user_id, passwordHash, now)
    // Whoever knew the old password may hold a session: end them all before signing in anew.
    repos.authSessions.revokeAllForUser(row.user_id, 'password_reset', now)
    // Receiving the reset email also proves the address.
    repos.users.markVerified(row.user_id, now)
    const membership = this.homeMembership(row.user_id)
    this.deps.auditor.record({ organizationId: membership.organization_id, userId: row.user_id }, req, {
      action: 'user.password_reset',
      resourceType: 'user',
      resourceId: row.user_id,
    })
    // Holding the mailbox and the new password is as good a proof as a sign-in; this is also the
    // way back in for an owner refused at an unfamiliar address while the account ceiling is spent.
    const user = repos.users.get(row.user_id)
    if (user) this.throttle.provenAt(user.email, req.ip)
    return this.startSession(row.user_id, membership.organization_id)
  }

  me(principal: Principal): UserResponseT {
    return this.userResponse(principal.userId, principal.organizationId, principal.kind === 'user' ? 'session' : 'api_key')
  }

  /** The organization a user signs in to: the one they joined first. */
  private homeMembership(userId: string) {
    const membership = this.deps.repos.organizations.firstMembership(userId)
    if (!membership) throw new ApiError('permission_denied', 'This account belongs to no organization.')
    return membership
  }

  private sendVerification(user: UserRow, lang: Lang): void {
    const { repos, clock, settings } = this.deps
    const token = randomToken(32)
    const now = clock.now()
    repos.emailTokens.insert({
      token_hash: sha256Hex(token),
      user_id: user.id,
      purpose: 'verify_email',
      created_at: now,
      expires_at: now + settings.verifyTokenTtlS * 1000,
    })
    this.deps.mailer.queue('verify_email', user.email, lang, '/verify-email', token, settings.verifyTokenTtlS)
  }

  /** Opens a dashboard session: a new refresh-token family and its first access token. */
  async startSession(userId: string, organizationId: string): Promise<TokenResponseT> {
    const now = this.deps.clock.now()
    const sessionId = randomUUID()
    const refresh = randomToken(32)
    const expiresAt = now + this.deps.settings.refreshTokenTtlS * 1000
    this.deps.repos.authSessions.create(
      { id: sessionId, user_id: userId, organization_id: organizationId, created_at: now, expires_at: expiresAt },
      sha256Hex(refresh),
    )
    return this.tokenResponse(userId, organizationId, sessionId, refresh, expiresAt)
  }

  private async tokenResponse(userId: string, organizationId: string, sessionId: string, refresh: string, expiresAt: number): Promise<TokenResponseT> {
    const access = await this.deps.tokens.issue({ userId, organizationId, sessionId })
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: this.deps.tokens.ttlSeconds,
      refresh_token: refresh,
      refresh_expires_in: Math.max(0, Math.floor((expiresAt - this.deps.clock.now()) / 1000)),
      user: this.userResponse(userId, organizationId, 'session'),
    }
  }

  private userResponse(userId: string, organizationId: string, method: 'session' | 'api_key'): UserResponseT {
    const view = this.deps.authCache.account(organizationId, userId)
    if (!view) throw new ApiError('authentication_required')
    const { user, organization, roleKey } = view
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      locale: user.locale === 'tr' ? 'tr' : 'en',
      email_verified: user.emailVerifiedAt !== null,
      created_at: user.createdAtIso,
      organization: { id: organization.id, name: organization.name },
      role: roleKey,
      auth_method: method,
    }
  }
}
