import path from 'node:path'
import { ApiError } from '../http/errors.js'
import { ValidationError } from '../http/validation.js'
import { ParseRefused, ParserPool } from './parser-pool.js'

/**
 * Plain text out of an uploaded file, by well-kept parsers: html-to-text (HTML), marked then
 * html-to-text (Markdown), unpdf (PDF.js, pure JavaScript), mammoth (DOCX), on the bytes already
 * bounded by OZAN_UPLOAD_LIMIT_BYTES. Those run in a worker thread (parse-worker.ts, by
 * parser-pool.ts) with a deadline and a memory cap, so a hostile file cannot stall this event loop;
 * plain text is only decoded, so it stays here.
 */
export type DocumentKind = 'text' | 'markdown' | 'html' | 'pdf' | 'docx'

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
export const CONTENT_TYPES: Record<DocumentKind, string> = {
  text: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  pdf: 'application/pdf',
  docx: DOCX,
}
const BY_EXTENSION: Record<string, DocumentKind> = {
  '.txt': 'text',
  '.text': 'text',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
  '.docx': 'docx',
}
const BY_MIME: Record<string, DocumentKind> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/pdf': 'pdf',
  [DOCX]: 'docx',
}

/**
 * The kind of a file, from its name's extension, else its declared type. A name with an extension
 * we do not read is refused even when the declared type is one we do: the client's Content-Type of
 * a part is often a guess (application/octet-stream).
 */
export function detectKind(filename: string, mimeType: string): DocumentKind {
  const ext = path.extname(filename).toLowerCase()
  const kind = ext ? BY_EXTENSION[ext] : BY_MIME[mimeType.split(';')[0]!.trim().toLowerCase()]
  if (!kind) throw new ApiError('unsupported_file_type')
  return kind
}

/** 422 on the file field, as any other invalid input; `type` is the stable code. */
export const unreadable = (msg: string) => new ValidationError([{ type: 'unreadable_document', loc: ['body', 'file'], msg }])

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/** Strict UTF-8 with no NUL; shared with the worker, which decodes Markdown and HTML. */
export function decodeText(data: Buffer): string {
  let text: string
  try {
    text = UTF8.decode(data)
  } catch {
    throw unreadable('The file is not UTF-8 text.')
  }
  if (text.includes('\0')) throw unreadable('The file holds binary data, not text.')
  return text
}

/** Unix newlines, single spaces, at most one blank line in a row, no padding. */
export function normalizeText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u00a0\t\f\v ]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

let shared: ParserPool | undefined
/**
 * The process's one pool, made on the first upload. Its idle workers are unref'd and exit on their
 * own, so nothing has to close it; close() is there for a shutdown that wants parses cut short.
 */
export const parserPool = (): ParserPool => (shared ??= new ParserPool())

/**
 * The plain text of a file of a known kind (normalized); a file that cannot be read, or that the
 * worker gave up on (too slow, out of memory, crashed) → 422; a full parse queue → 503.
 */
export async function extractText(kind: DocumentKind, data: Buffer, pool: ParserPool = parserPool()): Promise<string> {
  if (data.length === 0) throw unreadable('The file is empty.')
  if (kind === 'text') return normalizeText(decodeText(data))
  try {
    return await pool.parse(kind, data)
  } catch (err) {
    throw err instanceof ParseRefused ? unreadable(err.message) : err
  }
}
