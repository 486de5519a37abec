import type { z } from 'zod'
import { AgentConfig, Definition, type WorkflowNode } from '../../../engine/graph-runtime/index.js'
import type { WorkflowTemplateT } from '../schema.js'
import { appointmentBooking } from './appointment-booking.js'
import { leadQualification } from './lead-qualification.js'
import { receptionist } from './receptionist.js'
import { surveyTr } from './survey-tr.js'

/** A template as written: the graph and config in their input form (defaults filled on load). */
export interface TemplateSource {
  id: string
  name: string
  description: string
  language: string
  tags: string[]
  definition: z.input<typeof Definition>
  config?: z.input<typeof AgentConfig>
}

/** The graph a new agent gets when neither a template nor a definition is given. */
export const DEFAULT_DEFINITION: z.input<typeof Definition> = {
  variables: [],
  nodes: [
    { id: 'start', type: 'start', data: { first_message: { mode: 'static', text: 'Hello! How can I help you today?' } } },
    { id: 'assistant', type: 'conversation', data: { prompt: 'You are a helpful, concise voice assistant.' } },
    { id: 'goodbye', type: 'end', data: { message: 'Thank you for calling. Goodbye!', disposition: 'completed' } },
  ],
  edges: [
    { id: 'e_start', source: 'start', target: 'assistant' },
    {
      id: 'e_done',
      source: 'assistant',
      target: 'goodbye',
      condition: { kind: 'intent', description: 'The caller has what they needed or wants to end the call' },
    },
  ],
}

const SOURCES: TemplateSource[] = [receptionist, appointmentBooking, leadQualification, surveyTr]

/** Nodes that cannot run without an LLM (global intents are recognised by the LLM too). */
export function needsLlm(nodes: readonly WorkflowNode[]): boolean {
  return nodes.some(
    (n) =>
      n.global !== undefined ||
      n.type === 'conversation' ||
      n.type === 'knowledge' ||
      (n.type === 'start' && n.data.first_message?.mode === 'llm') ||
      (n.type === 'transfer' && n.data.summary_prompt !== undefined),
  )
}

let loaded: WorkflowTemplateT[] | null = null

/** Every template, parsed once; a template that does not parse is a bug and fails loudly. */
export function templates(): WorkflowTemplateT[] {
  loaded ??= SOURCES.map((t) => {
    const definition = Definition.parse(t.definition)
    return { ...t, definition, config: AgentConfig.parse(t.config ?? {}), needs_llm: needsLlm(definition.nodes) }
  })
  return loaded
}

export function registerTemplates(list: TemplateSource[]): void {
  SOURCES.push(...list)
  loaded = null
}
