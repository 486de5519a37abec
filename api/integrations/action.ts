/**
 * What an integration is: the credential provider it needs (if any) and its actions; each action
 * has a zod input schema (also published as JSON Schema), a description of its output, and a `run`
 * that talks to the provider only through the context's guarded request.
 */
import type { z } from 'zod'
import type { CredentialProviderKey } from '../credentials/providers.js'
import type { OutboundRequest, OutboundResponse } from '../security/outbound-request.js'

/** A failed action: a stable code (ours, or the provider's own error name) and a safe message. */
export interface ActionError {
  code: string
  message: string
}

/** `output` may accompany a failure too (e.g. the status and body of a non-2xx HTTP answer). */
export type ActionResult = { ok: true; output: unknown } | { ok: false; error: ActionError; output?: unknown }

export interface RequestOverrides {
  timeoutMs?: number
  maxResponseBytes?: number
}

export interface ActionContext {
  /** The organization's credential for the integration's provider, secrets in clear; null when none is needed. */
  credential: Readonly<Record<string, string>> | null
  /** An outbound request through the SSRF guard, with the operator's allow-list and deadline. */
  request(req: OutboundRequest, o?: RequestOverrides): Promise<OutboundResponse>
  signal: AbortSignal
}

export interface ActionDef<S extends z.ZodType = z.ZodType> {
  name: string
  description: string
  input: S
  /** What a successful run's `output` holds. */
  output: string
  run(input: z.output<S>, ctx: ActionContext): Promise<ActionResult>
}

export interface IntegrationDef {
  key: string
  name: string
  description: string
  /** The credential provider whose stored fields the actions use; null: none needed. */
  provider: CredentialProviderKey | null
  actions: readonly ActionDef[]
}

/** Lets TypeScript check `run` against the action's own input schema. */
export function defineAction<S extends z.ZodType>(action: ActionDef<S>): ActionDef {
  return action as unknown as ActionDef
}

/** The response body as JSON, or null when it is not JSON (or was cut at the size limit). */
export function jsonBody(res: OutboundResponse): Record<string, unknown> | null {
  if (res.truncated) return null
  try {
    const value: unknown = JSON.parse(res.body.toString('utf8'))
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** A base URL (the credential's, else the provider default) joined with an endpoint path. */
export function endpoint(credential: Readonly<Record<string, string>> | null, fallback: string, path: string): string {
  return `${(credential?.base_url ?? fallback).replace(/\/+$/, '')}${path}`
}

export const invalidResponse = (provider: string, status: number): ActionResult => ({
  ok: false,
  error: { code: 'invalid_response', message: `${provider} answered HTTP ${status} with a body that is not the expected JSON.` },
})
