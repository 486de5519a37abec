import path from 'node:path'
import { convert } from 'html-to-text'
import mammoth from 'mammoth'
import { marked } from 'marked'
import { extractText as extractPdfText, getDocumentProxy } from 'unpdf'
import { ApiError } from '../http/errors.js'
import { ValidationError } from '../http/validation.js'

/**
 * Plain text out of an uploaded file, by well-kept parsers: html-to-text (HTML), marked then
 * html-to-text (Markdown), unpdf (PDF.js, pure JavaScript), mammoth (DOCX). Each runs in-process on
 * the bytes already bounded by OZAN_UPLOAD_LIMIT_BYTES.
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
  '.txt': 'text', '.text': 'text', '.md': 'markdown', '.markdown': 'markdown', '.html': 'html', '.htm': 'html', '.pdf': 'pdf', '.docx': 'docx',
}
const BY_MIME: Record<string, DocumentKind> = {
  'text/plain': 'text', 'text/markdown': 'markdown', 'text/x-markdown': 'markdown', 'text/html': 'html', 'application/pdf': 'pdf', [DOCX]: 'docx',
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

function decodeText(data: Buffer): string {
  let text: string
  try {
    text = UTF8.decode(data)
  } catch {
    throw unreadable('The file is not UTF-8 text.')
  }
  if (text.includes('\0')) throw unreadable('The file holds binary data, not text.')
  return text
}

const HTML_OPTIONS = {
  wordwrap: false as const,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
}
const htmlToText = (html: string) => convert(html, HTML_OPTIONS)

async function pdfText(data: Buffer): Promise<string> {
  if (!data.subarray(0, 1024).includes('%PDF-')) throw unreadable('The file is not a PDF.')
  let doc: Awaited<ReturnType<typeof getDocumentProxy>> | undefined
  try {
    // No eval of font programs (PDF.js's own hardening switch); errors only, no console chatter.
    doc = await getDocumentProxy(new Uint8Array(data), { isEvalSupported: false, verbosity: 0 })
    return (await extractPdfText(doc, { mergePages: true })).text
  } catch (err) {
    const name = (err as Error).name
    if (name === 'PasswordException') throw unreadable('The PDF is encrypted with a password.')
    throw unreadable('The PDF is damaged: PDF.js cannot read it.')
  } finally {
    await doc?.destroy().catch(() => undefined)
  }
}

async function docxText(data: Buffer): Promise<string> {
  if (data.length < 4 || data.readUInt32LE(0) !== 0x04034b50) throw unreadable('The file is not a DOCX (Office Open XML) document.')
  try {
    return (await mammoth.extractRawText({ buffer: data })).value
  } catch {
    throw unreadable('The DOCX is damaged or not a Word document.')
  }
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

/** The plain text of a file of a known kind (normalized); a file that cannot be read → 422. */
export async function extractText(kind: DocumentKind, data: Buffer): Promise<string> {
  if (data.length === 0) throw unreadable('The file is empty.')
  switch (kind) {
    case 'text':
      return normalizeText(decodeText(data))
    case 'markdown':
      return normalizeText(htmlToText(await marked.parse(decodeText(data), { async: true })))
    case 'html':
      return normalizeText(htmlToText(decodeText(data)))
    case 'pdf':
      return normalizeText(await pdfText(data))
    case 'docx':
      return normalizeText(await docxText(data))
  }
}
