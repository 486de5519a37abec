import { z } from 'zod'
import { FREE_FORM, boundedJsonObject } from '../http/bounded-json.js'

export const IntegrationPath = z.object({
  key: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,39}$/)
    .describe('Integration key, e.g. slack.'),
})

const CredentialFieldInfo = z.object({
  name: z.string(),
  required: z.boolean(),
  secret: z.boolean().describe('Stored encrypted and read back masked.'),
  description: z.string(),
})

export const IntegrationResponse = z
  .object({
    key: z.string().describe('Used in POST /api/v1/integrations/{key}/run and in graph tool references.'),
    name: z.string(),
    description: z.string(),
    credential: z
      .object({
        provider: z.string().describe('Store it with PUT /api/v1/credentials { provider, fields }.'),
        name: z.string(),
        fields: z.array(CredentialFieldInfo),
        stored: z.boolean().describe('Whether the organization has stored this credential.'),
      })
      .nullable()
      .describe('The credential the actions use; null when none is needed.'),
    ready: z.boolean().describe('Whether actions can run now: no credential is needed, or it is stored.'),
    actions: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        input_schema: z.record(z.string(), z.unknown()).describe('JSON Schema (draft 2020-12) of RunActionRequest.input for this action.'),
        output: z.string().describe('What `output` holds after a successful run.'),
      }),
    ),
  })
  .meta({ id: 'IntegrationResponse' })

export const RunActionRequest = z
  .object({
    action: z.string().max(60).describe("One of the integration's action names (GET /api/v1/integrations lists them)."),
    input: boundedJsonObject(FREE_FORM.actionInput)
      .default({})
      .describe(
        `The action's input; its schema is the action's input_schema. It nests at most ${FREE_FORM.actionInput.maxDepth} levels and is at most ${FREE_FORM.actionInput.maxBytes} bytes of JSON.`,
      ),
  })
  .meta({ id: 'RunActionRequest' })

export const ActionErrorSchema = z.object({
  code: z
    .string()
    .describe(
      'destination_refused (SSRF guard), timeout, network, http_status (non-2xx), invalid_response, or the provider’s own error name (e.g. Slack invalid_auth, Cal.com UnauthorizedException, HubSpot CONFLICT).',
    ),
  message: z.string(),
})

export const RunActionResponse = z
  .object({
    ok: z.boolean().describe('true when the provider did what was asked. A provider-side failure is ok false with error (still HTTP 200).'),
    output: z.unknown().describe("The action's result (see the action's output); for http, also on failure (the non-2xx response). null when there is none."),
    error: ActionErrorSchema.optional(),
    duration_ms: z.number().int().min(0),
  })
  .meta({ id: 'RunActionResponse' })

export type IntegrationResponseT = z.output<typeof IntegrationResponse>
export type RunActionRequestT = z.output<typeof RunActionRequest>
export type RunActionResponseT = z.output<typeof RunActionResponse>
