/**
 * The document parsers, run only in a worker thread started by parser-pool.ts (through
 * parse-worker-boot.mjs, which loads TypeScript). A file that makes a parser spin or balloon then
 * costs this thread, which the pool can terminate, instead of the server's event loop.
 *
 * One request at a time: { kind, data } in, one WorkerReply out. A file we refuse (the parsers'
 * own 422s) comes back as its message; anything else thrown is a bug and comes back as `error`.
 */
import { parentPort } from 'node:worker_threads'
import { convert } from 'html-to-text'
import mammoth from 'mammoth'
import { marked } from 'marked'
import { extractText as extractPdfText, getDocumentProxy } from 'unpdf'
import { ValidationError } from '../http/validation.js'
import type { WorkerReply, WorkerRequest } from './parser-pool.js'
import { decodeText, normalizeText, unreadable } from './parsers.js'

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

async function parse({ kind, data: bytes }: WorkerRequest): Promise<string> {
  // A view, not a copy: the pool transferred a buffer of its own.
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  switch (kind) {
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

const port = parentPort
if (!port) throw new Error('parse-worker.ts runs only as a worker thread (see parser-pool.ts)')
const reply = (r: WorkerReply) => port.postMessage(r)

port.on('message', (req: WorkerRequest) => {
  parse(req).then(
    (text) => reply({ text }),
    (err: unknown) =>
      reply(err instanceof ValidationError ? { refused: err.detail[0]!.msg } : { error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  )
})
// Every import has loaded: from here a death is the document's doing, not a broken install.
reply({ ready: true })
