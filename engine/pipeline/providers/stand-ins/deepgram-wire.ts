/**
 * Deepgram live's wire format as the stand-in speaks it: the key on the upgrade, the HTTP answer to
 * a refused upgrade, the JSON control messages the client sends, and the Results and Metadata
 * messages it receives. Field names and shapes are Deepgram's (docs: "Live audio" → Results).
 */
import http from 'node:http'
import { randomUUID } from 'node:crypto'

const MODEL_INFO = { name: 'general-nova-3', version: '2025-01-01.0', arch: 'nova-3' }

/** How the key came: `Authorization: Token …` header, or the `token, <key>` subprotocol browsers use. */
export type DeepgramAuth = 'header' | 'subprotocol' | null

export function credentials(req: http.IncomingMessage): { auth: DeepgramAuth; key: string | null } {
  const header = req.headers.authorization
  const m = header ? /^token\s+(.+)$/i.exec(header) : null
  if (m) return { auth: 'header', key: m[1]!.trim() }
  const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim())
  const i = protocols.indexOf('token')
  if (i >= 0 && protocols[i + 1]) return { auth: 'subprotocol', key: protocols[i + 1]! }
  return { auth: null, key: null }
}

/** The raw HTTP response refusing a WebSocket upgrade, with Deepgram's error body. */
export function upgradeRefusal(status: number, errCode: string, errMsg: string): string {
  const body = JSON.stringify({ err_code: errCode, err_msg: errMsg, request_id: randomUUID() })
  const head = `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}`
  return `${head}\r\nconnection: close\r\n\r\n${body}`
}

/** The `type` of a text message from the client (KeepAlive, Finalize, CloseStream); undefined when it is not JSON. */
export function controlType(text: Buffer): unknown {
  try {
    return (JSON.parse(text.toString('utf8')) as { type?: unknown }).type
  } catch {
    return undefined
  }
}

export interface ResultsFlags {
  is_final: boolean
  speech_final: boolean
  from_finalize?: boolean
}

/** A `Results` message: `text` spoken from `startMs` to `endMs` of the stream's audio, its words spread evenly over that span. */
export function resultsMessage(requestId: string, startMs: number, endMs: number, text: string, flags: ResultsFlags): Record<string, unknown> {
  const words = text ? text.split(/\s+/) : []
  const span = (endMs - startMs) / 1000 / Math.max(1, words.length)
  return {
    type: 'Results',
    channel_index: [0, 1],
    duration: (endMs - startMs) / 1000,
    start: startMs / 1000,
    ...flags,
    channel: {
      alternatives: [
        {
          transcript: text,
          confidence: text ? 0.99 : 0,
          words: words.map((w, i) => ({
            word: w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''),
            start: startMs / 1000 + i * span,
            end: startMs / 1000 + (i + 1) * span,
            confidence: 0.99,
            punctuated_word: w,
          })),
        },
      ],
    },
    metadata: { request_id: requestId, model_info: MODEL_INFO, model_uuid: '00000000-0000-4000-8000-000000000003' },
  }
}

/** The `Metadata` message Deepgram sends after CloseStream, before it closes with 1000. */
export function metadataMessage(requestId: string, audioMs: number): Record<string, unknown> {
  return {
    type: 'Metadata',
    transaction_key: 'deprecated',
    request_id: requestId,
    sha256: '',
    created: new Date().toISOString(),
    duration: audioMs / 1000,
    channels: 1,
    models: [MODEL_INFO.name],
    model_info: {},
  }
}
