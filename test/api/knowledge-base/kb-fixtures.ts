import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { startTestApp, type Reply, type TestApp, type TestAppOptions } from '../../helpers/app.js'
import { expectStatus, newOwner, type Actor } from '../../helpers/tenancy-fixtures.js'

export const KB = '/api/v1/knowledge-base'
export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/knowledge')
export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name))

export interface Part {
  name: string
  value: string | Buffer
  /** Makes the part a file part. */
  filename?: string
  type?: string
}

/** A multipart/form-data body built byte by byte (RFC 7578), so tests control every part. */
export function multipart(parts: Part[], boundary = `----ozan-test-${Math.random().toString(16).slice(2)}`): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = []
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`
    const type = p.filename === undefined ? '' : `Content-Type: ${p.type ?? 'application/octet-stream'}\r\n`
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(p.value), Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

export interface Scene {
  a: TestApp
  owner: Actor
  /** A request as the owner (bearer token) unless `o` names other credentials. */
  send(method: string, urlPath: string, o?: Parameters<TestApp['request']>[2]): Promise<Reply>
}

export async function setup(t: Test, o: TestAppOptions = {}): Promise<Scene> {
  const a = await startTestApp(o)
  t.teardown(() => a.close())
  const owner = await newOwner(a)
  const send: Scene['send'] = (method, urlPath, opts = {}) =>
    a.request(method, urlPath, 'apiKey' in opts || 'token' in opts ? opts : { ...opts, token: owner.token })
  return { a, owner, send }
}

/** Uploads one file (optionally titled) and returns the raw reply. */
export function upload(
  s: Scene,
  file: { name: string; data: Buffer; type?: string },
  extra: Part[] = [],
  auth: { token?: string; apiKey?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const { body, contentType } = multipart([{ name: 'file', value: file.data, filename: file.name, type: file.type }, ...extra])
  const opts = {
    raw: body,
    headers: { 'content-type': contentType, ...auth.headers },
    ...(auth.apiKey ? { apiKey: auth.apiKey } : { token: auth.token ?? s.owner.token }),
  }
  return s.a.request('POST', `${KB}/documents/upload`, opts)
}

/** Creates a text document and returns its DocumentResponse. */
export async function createDoc(s: Scene, title: string, text: string, headers?: Record<string, string>): Promise<{ id: string; chunk_count: number }> {
  return expectStatus(await s.send('POST', `${KB}/documents`, { body: { title, text }, headers }), 201, `create ${title}`)
}

export interface Hit {
  score: number
  snippet: string
  document: { id: string; title: string }
  chunk: { id: string; index: number; text: string }
}

export async function search(s: Scene, query: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>): Promise<Hit[]> {
  return expectStatus(await s.send('POST', `${KB}/search`, { body: { query, ...extra }, headers }), 200, `search ${JSON.stringify(query)}`)
}

export const errorOf = (r: Reply) => ({ status: r.status, code: r.body?.error?.code ?? r.body?.detail?.[0]?.type })
