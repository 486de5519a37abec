// Shared by the MCP tests (not a test file: tap includes only *.test.ts).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { TestApp } from '../helpers/app.js'
import { actorOf, createKey, freshEmail, type Actor } from '../helpers/rbac.js'

/** A tool call's result, with what the tests read of it. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult & { json: any }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  const first = result.content[0]
  let json: unknown
  try {
    json = first?.type === 'text' ? JSON.parse(first.text) : undefined
  } catch {
    json = undefined
  }
  return { ...result, json }
}

/** A second organization with its own owner, key and agent (the tenancy checks aim at them). */
export async function strangerWithAgent(a: TestApp): Promise<{ stranger: Actor; key: string; agentId: string }> {
  const stranger = actorOf(await a.register(freshEmail('stranger')))
  const key = await createKey(a, stranger)
  const res = await a.request('POST', '/api/v1/workflows', { apiKey: key, body: { name: 'Not yours' } })
  if (res.status !== 201) throw new Error(`stranger's agent: ${res.status} ${res.text}`)
  return { stranger, key, agentId: res.body.id }
}

export const UNKNOWN_UUID = '5b0c7a52-7d1e-4c1e-9a51-0c7f3c2a9e11'

/** An error body with its request id blanked, to compare two answers byte for byte. */
export function withoutRequestId(json: { error?: { request_id?: string } }): string {
  return JSON.stringify(json).replaceAll(String(json.error?.request_id), '<request_id>')
}
