/**
 * A local stand-in for HubSpot's CRM v3 contact creation, `POST /crm/v3/objects/contacts` with
 * `Authorization: Bearer <private app token>` and `{ properties: { email, firstname, … } }`. It
 * answers 201 with the contact (id, properties, createdAt, updatedAt, archived) built from the
 * input, and HubSpot's error body `{ status: "error", message, correlationId, category }` for a
 * bad token (401 INVALID_AUTHENTICATION), an invalid email (400 VALIDATION_ERROR) and an email
 * that already has a contact (409 CONFLICT).
 */
import { randomUUID } from 'node:crypto'
import { startStandIn, type Answer, type InjectedFailure, type LoggedRequest } from './stand-in-http.js'

export type { InjectedFailure, LoggedRequest } from './stand-in-http.js'

export interface HubspotContact {
  id: string
  properties: Record<string, string>
  createdAt: string
  updatedAt: string
  archived: false
}

export interface HubspotStandIn {
  /** API base URL (as https://api.hubapi.com). */
  url: string
  requests: LoggedRequest[]
  contacts: HubspotContact[]
  fail(...failures: InjectedFailure[]): void
  close(): Promise<void>
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const CATEGORIES: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'INVALID_AUTHENTICATION',
  404: 'OBJECT_NOT_FOUND',
  409: 'CONFLICT',
  429: 'RATE_LIMITS',
  500: 'INTERNAL_ERROR',
}

export async function startHubspotStandIn(o: { accessToken: string; host?: string; port?: number }): Promise<HubspotStandIn> {
  const contacts: HubspotContact[] = []
  let nextId = 9001
  const error = (status: number, message: string, headers: Record<string, string> = {}): Answer => ({
    status,
    headers,
    body: { status: 'error', message, correlationId: randomUUID(), category: CATEGORIES[status] ?? 'UNKNOWN' },
  })

  const running = await startStandIn((req, failure) => {
    if (req.method !== 'POST' || req.path !== '/crm/v3/objects/contacts') return error(404, `Unable to route ${req.method} ${req.path}`)
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
    if (token !== o.accessToken) {
      return error(
        401,
        'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
      )
    }
    if (failure?.kind === 'status')
      return error(
        failure.status,
        failure.status === 429 ? 'You have reached your secondly limit.' : 'internal error',
        failure.retryAfterS !== undefined ? { 'retry-after': String(failure.retryAfterS) } : {},
      )
    const props = req.body?.properties
    if (!props || typeof props !== 'object' || Array.isArray(props)) return error(400, 'Invalid input JSON: properties is required')
    const properties = props as Record<string, unknown>
    for (const [name, value] of Object.entries(properties)) {
      if (typeof value !== 'string')
        return error(400, `Property values were not valid: [{"isValid":false,"message":"${name} must be a string","error":"INVALID_STRING","name":"${name}"}]`)
    }
    const email = properties.email as string | undefined
    if (email !== undefined && !EMAIL.test(email)) {
      return error(
        400,
        `Property values were not valid: [{"isValid":false,"message":"Email address ${email} is invalid","error":"INVALID_EMAIL","name":"email"}]`,
      )
    }
    const existing = email && contacts.find((c) => c.properties.email === email.toLowerCase())
    if (existing) return error(409, `Contact already exists. Existing ID: ${existing.id}`)
    const now = new Date().toISOString()
    const id = String(nextId++)
    const contact: HubspotContact = {
      id,
      properties: {
        ...(properties as Record<string, string>),
        ...(email && { email: email.toLowerCase() }),
        createdate: now,
        lastmodifieddate: now,
        hs_object_id: id,
      },
      createdAt: now,
      updatedAt: now,
      archived: false,
    }
    contacts.push(contact)
    return { status: 201, body: contact }
  }, o)

  return { url: running.origin, requests: running.requests, contacts, fail: running.fail, close: running.close }
}
