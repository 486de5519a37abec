import type { Repos } from '../../db/index.js'
import { Definition, validateDefinition, type ChatMessage, type LlmClient, type RuntimeState } from '../../engine/graph-runtime/index.js'
import { ApiError } from '../http/errors.js'
import type { Principal } from '../security/principal.js'
import type { z } from 'zod'
import type { IrisChatResponse } from './schema.js'

const MAX_EVENTS = 200
const MAX_CONTEXT_CHARS = 60_000

const SYSTEM = `You are Iris, the assistant inside Ozan, a platform for voice AI agents built as graphs.
An agent's graph has variables, nodes (start, conversation, say, collect, condition, tool, knowledge,
transfer, end; a node with "global" is entered from anywhere when the caller expresses its intent)
and edges with conditions (always, expression = JSON Logic over variables, intent, outcome).
Answer the builder's questions about the agent and, when one is given, about a session: explain
what happened and why, citing node ids and the events that show it. Be concise and concrete.
If a change to the graph would help, call propose_definition with the FULL new graph and a one-line
summary; it is shown to the builder, who decides whether to apply it. Never claim you applied it.`

const PROPOSE = {
  name: 'propose_definition',
  description: 'Suggest a changed agent graph. Pass the complete graph (variables, nodes, edges), not a diff.',
  parameters: {
    type: 'object',
    properties: { summary: { type: 'string', description: 'One line: what the change does' }, definition: { type: 'object', description: 'The full graph' } },
    required: ['summary', 'definition'],
  },
}

/** The agent chat helper: answers grounded in the agent's graph and a session's record. */
export class IrisService {
  constructor(
    private readonly repos: Repos,
    private readonly llmFor: (organizationId: string) => LlmClient | undefined,
  ) {}

  sessions(p: Principal, workflowId: string) {
    const scope = { organizationId: p.organizationId, environmentId: p.environmentId }
    if (!this.repos.workflows.get(scope, workflowId)) throw new ApiError('not_found')
    return this.repos.sessions.page(scope, { workflowId, status: null, channel: null, limit: 20, offset: 0 }).items.map((s) => {
      const state = JSON.parse(s.state) as RuntimeState
      return {
        session_id: s.id,
        channel: s.channel,
        status: s.status,
        disposition: s.disposition,
        turn_count: s.turn_count,
        started_at: new Date(s.started_at).toISOString(),
        preview: (state.history.find((h) => h.role === 'user')?.text ?? '').slice(0, 120),
      }
    })
  }

  async chat(
    p: Principal,
    input: { workflow_uuid: string; session_id?: string; message: string; history: { role: 'user' | 'assistant'; text: string }[] },
    signal: AbortSignal,
  ): Promise<z.output<typeof IrisChatResponse>> {
    const scope = { organizationId: p.organizationId, environmentId: p.environmentId }
    const wf = this.repos.workflows.get(scope, input.workflow_uuid)
    if (!wf) throw new ApiError('not_found')
    const session = input.session_id ? this.repos.sessions.get(scope, input.session_id) : undefined
    if (input.session_id && (!session || session.workflow_id !== wf.id)) throw new ApiError('not_found')
    const llm = this.llmFor(p.organizationId)
    if (!llm) throw new ApiError('provider_not_configured')

    let context = `Agent "${wf.name}" (draft graph):\n${wf.draft_definition}\n\nConfig:\n${wf.draft_config}`
    if (session) {
      const events = this.repos.sessions
        .events(session.id)
        .slice(-MAX_EVENTS)
        .map((e) => `${e.seq} ${e.kind} ${e.data}`)
      context += `\n\nSession ${session.id} (${session.channel}, ${session.status}, disposition ${session.disposition ?? 'none'}, version ${session.workflow_version ?? 'draft'}). Events in order:\n${events.join('\n')}`
    }
    const messages: ChatMessage[] = [
      { role: 'system', content: `${SYSTEM}\n\n${context.slice(-MAX_CONTEXT_CHARS)}` },
      ...input.history.map((h) => ({ role: h.role, content: h.text }) as ChatMessage),
      { role: 'user', content: input.message },
    ]
    let reply = ''
    let proposal: z.output<typeof IrisChatResponse>['proposal'] = null
    try {
      for await (const chunk of llm.stream({ model: undefined, messages, tools: [PROPOSE], temperature: 0.2, maxTokens: 2048 }, signal)) {
        if (chunk.type === 'text') reply += chunk.text
        if (chunk.type === 'tool_call' && chunk.name === PROPOSE.name) proposal = this.proposal(chunk.arguments) ?? proposal
      }
    } catch (err) {
      // The chat's deadline ran out while the provider was still answering: unavailable (503), not a bug (500).
      if (signal.aborted && !(err instanceof ApiError)) throw new ApiError('service_unavailable')
      throw err
    }
    return { reply: reply.trim() || (proposal ? proposal.summary : ''), proposal }
  }

  /** A proposed graph is checked exactly as PUT /definition would check it, and reported as such. */
  private proposal(json: string): z.output<typeof IrisChatResponse>['proposal'] {
    let args: { summary?: unknown; definition?: unknown }
    try {
      args = JSON.parse(json) as typeof args
    } catch {
      return null
    }
    const parsed = Definition.safeParse(args.definition)
    if (!parsed.success) return null
    const problems = validateDefinition(parsed.data)
    return {
      summary: typeof args.summary === 'string' ? args.summary.slice(0, 500) : 'Suggested change',
      definition: parsed.data,
      valid: problems.length === 0,
      problems,
    }
  }
}
