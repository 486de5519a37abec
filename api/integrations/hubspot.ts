/**
 * HubSpot: create a CRM contact through the CRM v3 objects API (`POST /crm/v3/objects/contacts`,
 * `Authorization: Bearer <private app access token>`). HubSpot's error body
 * `{ status: "error", message, category, correlationId }` gives the action's error: the category
 * (CONFLICT for an existing email, INVALID_AUTHENTICATION, VALIDATION_ERROR, …) is the code.
 */
import { z } from 'zod'
import { defineAction, endpoint, invalidResponse, jsonBody, type IntegrationDef } from './action.js'

export const HUBSPOT_API_URL = 'https://api.hubapi.com'

const text = (max: number) => z.string().trim().min(1).max(max).optional()

const createContact = defineAction({
  name: 'create_contact',
  description: 'Create a contact in HubSpot CRM.',
  input: z
    .object({
      email: z.email().describe("The contact's email (HubSpot's unique key for contacts)."),
      firstname: text(100),
      lastname: text(100),
      phone: text(40),
      company: text(200),
    })
    .strict(),
  output: '{ contact: { id, email, firstname, lastname, created_at } }: the contact HubSpot created.',
  async run(input, ctx) {
    const properties = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
    const res = await ctx.request({
      method: 'POST',
      url: endpoint(ctx.credential, HUBSPOT_API_URL, '/crm/v3/objects/contacts'),
      headers: { authorization: `Bearer ${ctx.credential!.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ properties }),
    })
    const json = jsonBody(res)
    if (!json) return invalidResponse('HubSpot', res.status)
    if (res.status !== 201 && res.status !== 200) {
      const code = typeof json.category === 'string' ? json.category : `http_${res.status}`
      const message = typeof json.message === 'string' ? json.message.slice(0, 500) : `HubSpot answered HTTP ${res.status}.`
      return { ok: false, error: { code, message: `HubSpot refused the contact: ${message}` } }
    }
    const p = (json.properties ?? {}) as Record<string, unknown>
    if (typeof json.id !== 'string') return invalidResponse('HubSpot', res.status)
    return {
      ok: true,
      output: {
        contact: {
          id: json.id,
          email: p.email ?? input.email,
          firstname: p.firstname ?? null,
          lastname: p.lastname ?? null,
          created_at: json.createdAt ?? null,
        },
      },
    }
  },
})

export const hubspotIntegration: IntegrationDef = {
  key: 'hubspot',
  name: 'HubSpot',
  description: 'Add leads to HubSpot CRM with a private app access token.',
  provider: 'hubspot',
  actions: [createContact],
}
