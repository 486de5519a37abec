/**
 * An agent's saved definition and config, read back for a run. Validation bounds what can be saved
 * (depth, size, reserved names), but rows saved before a bound existed can break it: such a row is
 * a 409 `agent_invalid` telling the user to save the agent again, never a 500 from a parse that
 * throws on the run's path.
 */
import { AgentConfig, Definition } from '../../engine/graph-runtime/index.js'
import { ApiError } from '../http/errors.js'

export function storedDefinition(json: string): Definition {
  return parsed(Definition, json, 'definition')
}

export function storedConfig(json: string): AgentConfig {
  return parsed(AgentConfig, json, 'config')
}

function parsed<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } },
  json: string,
  what: 'definition' | 'config',
): T {
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    throw invalid(what, 'it is not JSON')
  }
  let result
  try {
    result = schema.safeParse(value)
  } catch {
    // A stored value deep enough to overflow the validator's stack.
    throw invalid(what, 'it is nested too deeply')
  }
  if (result.success) return result.data
  const issue = result.error.issues[0]
  throw invalid(what, issue ? `${issue.path.map(String).join('.') || 'the root'}: ${issue.message}` : 'no reason given')
}

function invalid(what: string, why: string): ApiError {
  const put = what === 'definition' ? 'PUT /api/v1/workflows/{workflow_uuid}/definition' : 'PUT /api/v1/workflows/{workflow_uuid}/config'
  return new ApiError('agent_invalid', `The agent's saved ${what} no longer passes validation (${why}): save a corrected one with ${put}, then publish.`)
}
