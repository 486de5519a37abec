import { z } from 'zod'

export const WebCallTokenRequest = z
  .object({
    workflow_uuid: z.uuid().describe('The agent to call; its newest published version runs.'),
    variables: z
      .record(z.string().max(64), z.unknown())
      .refine((v) => Object.keys(v).length <= 200, 'At most 200 variables')
      .optional()
      .describe('Values for declared variables (at most 8 KiB of JSON); unknown names are ignored.'),
  })
  .meta({ id: 'WebCallTokenRequest' })

export const WebCallTokenResponse = z
  .object({
    token: z.string().describe('Single-use web-call token (JWT); it is already part of ws_url.'),
    ws_url: z.string().describe('Open a WebSocket here (protocol v1, docs/protocol.md). It holds the token: do not log it.'),
    expires_at: z.iso.datetime().describe('The token must be used (the socket opened) before this instant.'),
  })
  .meta({ id: 'WebCallTokenResponse' })
