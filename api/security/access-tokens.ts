import { randomUUID } from 'node:crypto'
import { SignJWT, jwtVerify, errors } from 'jose'
import type { Clock } from '../../core/index.js'

export interface AccessClaims {
  userId: string
  organizationId: string
  sessionId: string
}

const ISSUER = 'ozan'
const AUDIENCE = 'ozan-api'

/** Short-lived HS256 JWTs for dashboard sessions. */
export class AccessTokens {
  constructor(
    private readonly key: Uint8Array,
    private readonly ttlS: number,
    private readonly clock: Clock,
  ) {}

  get ttlSeconds(): number {
    return this.ttlS
  }

  async issue(c: AccessClaims): Promise<string> {
    const nowS = Math.floor(this.clock.now() / 1000)
    return new SignJWT({ org: c.organizationId, sid: c.sessionId, typ: 'access' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setJti(randomUUID())
      .setSubject(c.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + this.ttlS)
      .sign(this.key)
  }

  /** Returns the claims of a genuine, unexpired token, or null. */
  async verify(token: string): Promise<AccessClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        currentDate: new Date(this.clock.now()),
      })
      if (payload.typ !== 'access' || typeof payload.sub !== 'string') return null
      if (typeof payload.org !== 'string' || typeof payload.sid !== 'string') return null
      return { userId: payload.sub, organizationId: payload.org, sessionId: payload.sid }
    } catch (err) {
      if (err instanceof errors.JOSEError) return null
      throw err
    }
  }
}
