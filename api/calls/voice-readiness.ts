/**
 * What a voice call of an agent needs before it can run, checked when a web-call token is minted
 * (POST /calls/web-token, POST /calls with channel web) so a missing key is a 400 to the server
 * that asked, not a call that fails once the browser has connected. It resolves the providers
 * exactly as the engine does on connect (SessionService.voiceProviders, runtimeIO), so the two can
 * never disagree about the same credentials.
 */
import type { Scope } from '../../db/index.js'
import type { Definition } from '../../engine/graph-runtime/index.js'
import { ApiError } from '../http/errors.js'
import type { SessionAgent, SessionService } from '../sessions/service.js'
import { storedConfig, storedDefinition } from '../sessions/stored-agent.js'

const LLM_MISSING =
  'The agent\'s LLM provider is "openai" (its conversation nodes or LLM first message need it), and no OpenAI key is available: ' +
  'store an "openai" credential (PUT /api/v1/credentials) or set OZAN_OPENAI_API_KEY'

/**
 * Throws provider_not_configured naming the first missing provider: speech-to-text (no embedded
 * default), text-to-speech (espeak, the default, needs no key), then the LLM when the graph needs one.
 */
export function assertVoiceReady(sessions: SessionService, scope: Scope, agent: Pick<SessionAgent, 'definition' | 'config'>): void {
  sessions.voiceProviders(scope.organizationId, storedConfig(agent.config))
  if (needsLlm(storedDefinition(agent.definition)) && sessions.runtimeIO(scope).llm === undefined)
    throw new ApiError('provider_not_configured', `${LLM_MISSING}.`)
}

/**
 * The nodes that cannot run without an LLM (the runtime answers them provider_not_configured):
 * conversation nodes and an LLM-written first message. Collect and knowledge nodes fall back to
 * rules and the best passage.
 */
export function needsLlm(definition: Definition): boolean {
  return definition.nodes.some((n) => n.type === 'conversation' || (n.type === 'start' && n.data.first_message?.mode === 'llm'))
}
