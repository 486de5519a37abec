/**
 * What an agent's run takes from outside its graph: the runtime's io (LLM, integration actions,
 * knowledge base) and, for speech, the recognizer and the voice. Built here only, for every path
 * that runs an agent: text turns and runs (SessionService), voice turns (voice-turn.ts), and web
 * calls (api/calls/engine.ts on connect, api/calls/voice-readiness.ts when a token is minted), so
 * no two of them can disagree about the same organization's credentials.
 */
import type { Clock } from '../../core/index.js'
import type { AgentConfig, KnowledgeBase, LlmClient, RuntimeIO, ToolRunner } from '../../engine/graph-runtime/index.js'
import { ApiError } from '../http/errors.js'
import type { VoiceProviders, VoiceProvidersFor } from './voice-providers.js'

/** Where an organization's providers come from; each is looked up per run, so a changed credential applies at once. */
export interface AgentProviderSources {
  clock: Clock
  /** The LLM an organization's sessions use, or undefined when none is configured. */
  llmFor?: (organizationId: string) => LlmClient | undefined
  /** Integration actions for tool nodes and LLM tools. */
  toolsFor?: (organizationId: string) => ToolRunner
  /** The knowledge base of the session's organization and environment. */
  knowledgeFor?: (scope: { organizationId: string; environmentId: string }) => KnowledgeBase
  /** STT and TTS of a voice turn or call, from the agent's config and the organization's credentials. */
  voiceFor?: VoiceProvidersFor
}

/** The runtime's io for a run in the scope: its organization's LLM and tools, its environment's knowledge. */
export function agentRuntimeIO(sources: AgentProviderSources, scope: { organizationId: string; environmentId: string }): RuntimeIO {
  return {
    llm: sources.llmFor?.(scope.organizationId),
    tools: sources.toolsFor?.(scope.organizationId),
    knowledge: sources.knowledgeFor?.(scope),
    now: () => new Date(sources.clock.now()),
  }
}

/** STT and TTS for an agent config; throws ApiError provider_not_configured naming what to configure. */
export function agentVoice(sources: AgentProviderSources, organizationId: string, config: AgentConfig): VoiceProviders {
  if (!sources.voiceFor) throw new ApiError('provider_not_configured', 'Voice is not configured on this server.')
  return sources.voiceFor(organizationId, config)
}
