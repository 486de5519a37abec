import type { LlmChunk, LlmClient, LlmRequest } from '../io.js'

/**
 * An LlmClient that replays scripted responses, one per call, and records every request. A
 * response may hold a `gate` promise: the stream pauses there until the test resolves it.
 */
export class ScriptedLlm implements LlmClient {
  readonly requests: LlmRequest[] = []

  constructor(private readonly script: (LlmChunk | { gate: Promise<void> })[][]) {}

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk> {
    this.requests.push(structuredClone(request))
    const response = this.script.shift()
    if (!response) throw new Error('ScriptedLlm: no response left for this call')
    for (const item of response) {
      signal.throwIfAborted()
      if ('gate' in item) {
        await Promise.race([item.gate, new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))])
        continue
      }
      yield item
    }
  }
}

export const text = (t: string): LlmChunk => ({ type: 'text', text: t })
export const call = (name: string, args: Record<string, unknown> = {}, id = `call_${name}`): LlmChunk => ({
  type: 'tool_call',
  id,
  name,
  arguments: JSON.stringify(args),
})
