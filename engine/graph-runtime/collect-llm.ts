import type { AgentConfig } from './config.js'
import type { WorkflowNode } from './definition.js'
import { extractValue } from './extract.js'
import type { LlmClient, RuntimeEvent } from './io.js'

export interface RestateParams {
  node: Extract<WorkflowNode, { type: 'collect' }>
  /** What the caller said. */
  text: string
  llm: LlmClient
  config: AgentConfig
  now: Date
  /** The question as the caller heard it (rendered). */
  prompt: string
  emit: (e: RuntimeEvent) => void
  signal: AbortSignal
}

/**
 * When the words do not parse (e.g. "next Tuesday" for a date), the LLM restates the value in a
 * plain form, which the same deterministic parser must then accept: types stay exact, and a
 * made-up answer outside the choices is still refused.
 */
export async function restateWithLlm(p: RestateParams) {
  const { node, now } = p
  const forms: Record<string, string> = {
    number: 'digits, e.g. 1500',
    date: `YYYY-MM-DD (today is ${now.toISOString().slice(0, 10)})`,
    yes_no: 'yes or no',
    choice: `exactly one of: ${(node.data.choices ?? []).join(' | ')}`,
    email: 'an email address',
    phone: 'digits with an optional leading +',
    text: 'the answer itself',
  }
  const request = {
    model: p.config.llm.model,
    messages: [
      {
        role: 'system' as const,
        content: `The caller was asked: "${p.prompt}". If their reply contains the answer, call record_value with it as ${forms[node.data.value_type]}. If it does not, call no_value.`,
      },
      { role: 'user' as const, content: p.text },
    ],
    tools: [
      {
        name: 'record_value',
        description: 'Record the answer',
        parameters: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
      },
      { name: 'no_value', description: 'The reply holds no answer', parameters: { type: 'object', properties: {} } },
    ],
    temperature: 0,
    maxTokens: 64,
  }
  let said: string | null = null
  for await (const chunk of p.llm.stream(request, p.signal)) {
    if (chunk.type === 'usage') p.emit(chunk)
    if (chunk.type === 'tool_call' && chunk.name === 'record_value') {
      try {
        const v = (JSON.parse(chunk.arguments) as { value?: unknown }).value
        if (typeof v === 'string' || typeof v === 'number') said = String(v)
      } catch {
        said = null
      }
    }
  }
  return said === null ? null : extractValue(node.data.value_type, said, { choices: node.data.choices, today: now })
}
