import { z } from 'zod'
import { Definition } from '../../engine/graph-runtime/index.js'

export const IrisSessionOption = z
  .object({
    session_id: z.uuid(),
    channel: z.enum(['chat', 'run', 'web', 'phone']),
    status: z.enum(['active', 'completed', 'failed']),
    disposition: z.string().nullable(),
    turn_count: z.number().int(),
    started_at: z.iso.datetime(),
    preview: z.string().describe('The caller’s first words, to recognise the session.'),
  })
  .meta({ id: 'IrisSessionOption' })

export const IrisChatRequest = z
  .object({
    workflow_uuid: z.uuid(),
    session_id: z.uuid().optional().describe('A session of this agent to discuss (GET /iris/sessions/{workflow_uuid}).'),
    message: z.string().trim().min(1).max(4000),
    history: z
      .array(z.object({ role: z.enum(['user', 'assistant']), text: z.string().max(8000) }))
      .max(20)
      .default([])
      .describe('The conversation so far with the helper, oldest first.'),
  })
  .meta({ id: 'IrisChatRequest' })

export const IrisChatResponse = z
  .object({
    reply: z.string(),
    proposal: z
      .object({
        summary: z.string(),
        definition: Definition.describe('A full graph to PUT to /workflows/{id}/definition; never applied automatically.'),
        valid: z.boolean(),
        problems: z.array(z.object({ type: z.string(), loc: z.array(z.union([z.string(), z.number()])), msg: z.string() })),
      })
      .nullable()
      .describe('A suggested change to the agent, when the helper made one.'),
  })
  .meta({ id: 'IrisChatResponse' })

export const IrisSessionsPath = z.object({ workflow_uuid: z.uuid() })
