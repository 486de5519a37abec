/**
 * The OpenAPI document's operations → one Python method each (named after its operationId), plus
 * an `iter_<operation>` paging helper for every list that takes `limit` and `offset`. The methods
 * only shape arguments; sending, retrying and errors live in sdk/python/ozan/client.py (`_call`,
 * `_paginate`), which is written by hand and tested on its own.
 */
import { oneLine, pyStr, snake, type TypeEmitter } from './python-types.js'

/** Text as docstring lines of at most `width` characters. */
function wrap(text: unknown, width = 100): string[] {
  if (typeof text !== 'string') return []
  const words = text.replace(/\\/g, '\\\\').replace(/"""/g, "'''").split(/\s+/).filter(Boolean)
  const lines: string[] = []
  for (const w of words) {
    if (lines.length && lines.at(-1)!.length + w.length < width) lines[lines.length - 1] += ` ${w}`
    else lines.push(w)
  }
  return lines
}

type Json = Record<string, unknown>
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

/**
 * Requests the client never retries on its own. The spec: "No idempotency key exists for
 * POST /api/v1/calls; a retried request runs again" — so a caller opts in per call (`retry=True`).
 */
export const OPT_IN_RETRY = new Set(['POST /api/v1/calls'])

/** Names the client itself uses; a parameter with one of these names is renamed `<name>_param`. */
const RESERVED = new Set(['self', 'body', 'retry', 'content_type', 'page_size'])

export interface Operation {
  operationId: string
  method: string
  path: string
}

interface Param {
  name: string
  py: string
  in: 'path' | 'query' | 'header'
  required: boolean
  type: string
}

const pascal = (s: string) => s.replace(/(^|_)([a-z0-9])/g, (_m, _u, c: string) => c.toUpperCase())

/** Every operation of the document, in document order. */
export function operationsOf(doc: Json): (Operation & { op: Json })[] {
  const out: (Operation & { op: Json })[] = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined
      if (op) out.push({ operationId: String(op.operationId), method: method.toUpperCase(), path, op })
    }
  }
  return out
}

/** The component ids sent as multipart/form-data bodies (their binary fields are file parts). */
export function multipartSchemas(operations: { op: Json }[]): Set<string> {
  const ids = new Set<string>()
  for (const { op } of operations) {
    const content = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined
    const ref = (content?.['multipart/form-data']?.schema as Json | undefined)?.$ref
    if (typeof ref === 'string') ids.add(ref.replace('#/components/schemas/', ''))
  }
  return ids
}

function paramsOf(op: Json, types: TypeEmitter, hint: string): Param[] {
  const params = ((op.parameters ?? []) as Json[]).map((p) => {
    const name = String(p.name)
    let py = snake(name)
    if (RESERVED.has(py)) py = `${py}_param`
    return { name, py, in: p.in as Param['in'], required: Boolean(p.required), type: types.typeOf(p.schema as Json, `${hint}${pascal(py)}`) }
  })
  const seen = new Set<string>()
  for (const p of params) {
    if (seen.has(p.py)) throw new Error(`${String(op.operationId)}: two parameters map to ${p.py}`)
    seen.add(p.py)
  }
  return params
}

/** The Python f-string of a path: `/calls/{call_uuid}` → `f"/calls/{_segment(call_uuid)}"`. */
function pathExpr(path: string, params: Param[]): string {
  const byName = new Map(params.filter((p) => p.in === 'path').map((p) => [p.name, p.py]))
  const body = path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const py = byName.get(name)
    if (!py) throw new Error(`${path}: no path parameter ${name}`)
    return `{_segment(${py})}`
  })
  return body.includes('{') ? `f${JSON.stringify(body)}` : JSON.stringify(body)
}

const dictExpr = (params: Param[]) => (params.length ? `{${params.map((p) => `${JSON.stringify(p.name)}: ${p.py}`).join(', ')}}` : 'None')

const kwarg = (p: Param) => (p.required ? `${p.py}: ${pyStr(p.type)}` : `${p.py}: ${pyStr(`${p.type} | None`)} = None`)

function docstring(o: Operation, op: Json, extra: string[] = []): string[] {
  const lines = [`${o.method} ${o.path}${op.summary ? `: ${oneLine(op.summary)}` : ''}`]
  const description = wrap(op.description)
  if (description.length) lines.push('', ...description)
  lines.push(...extra)
  // A docstring's text ending in a quote would run into the closing quotes: escape it.
  if (lines.length === 1) return [`        """${lines[0]!.replace(/"$/, '\\"')}"""`]
  return [`        """${lines[0]}`, ...lines.slice(1).map((l) => (l ? `        ${l}` : '')), '        """']
}

/** The request body's parameter(s) and how the client is to send it. */
function bodyOf(op: Json, types: TypeEmitter, hint: string): { params: string[]; args: string[] } {
  const rb = op.requestBody as Json | undefined
  if (!rb) return { params: [], args: [] }
  const content = rb.content as Record<string, Json>
  const media = Object.keys(content)
  const schema = content[media[0]!]!.schema as Json
  if (media[0] === 'multipart/form-data')
    return { params: [`body: ${pyStr(types.typeOf(schema, `${hint}Body`, true))}`], args: ['body=body', 'encoding="multipart"'] }
  if (schema.format === 'binary') {
    const ct = media.length > 1 ? [`content_type: ${pyStr(`Literal[${media.map((m) => JSON.stringify(m)).join(', ')}]`)} = ${JSON.stringify(media[0])}`] : []
    return {
      params: ['body: "bytes"', ...ct],
      args: ['body=body', 'encoding="raw"', `content_type=${media.length > 1 ? 'content_type' : JSON.stringify(media[0])}`],
    }
  }
  const type = types.typeOf(schema, `${hint}Body`)
  if (rb.required === false) return { params: [`body: ${pyStr(`${type} | None`)} = None`], args: ['body=body'] }
  return { params: [`body: ${pyStr(type)}`], args: ['body=body'] }
}

function responseOf(op: Json): Json | null {
  const responses = op.responses as Record<string, Json>
  const ok = Object.keys(responses).find((s) => /^2\d\d$/.test(s))
  const content = ok ? (responses[ok]!.content as Record<string, Json> | undefined) : undefined
  return (content?.['application/json']?.schema as Json | undefined) ?? null
}

/** The item type of a paged list, and whether its pages are `Page_X_` bodies or plain arrays. */
function pagingOf(response: Json | null, types: TypeEmitter, schemas: Record<string, Json>, hint: string): { item: string; bodyPages: boolean } | null {
  if (!response) return null
  if (response.type === 'array') return { item: types.typeOf(response.items as Json, `${hint}Item`), bodyPages: false }
  const ref = typeof response.$ref === 'string' ? response.$ref.replace('#/components/schemas/', '') : null
  const items = ref ? ((schemas[ref]?.properties as Record<string, Json> | undefined)?.items as Json | undefined) : undefined
  return items?.type === 'array' ? { item: types.typeOf(items.items as Json, `${hint}Item`), bodyPages: true } : null
}

/** The methods of one operation (its own, and `iter_…` for a paged list). */
export function emitOperation(o: Operation & { op: Json }, types: TypeEmitter, schemas: Record<string, Json>): string[] {
  const name = snake(o.operationId)
  const hint = pascal(name)
  const params = paramsOf(o.op, types, hint)
  const path = params.filter((p) => p.in === 'path')
  const query = params.filter((p) => p.in === 'query')
  const headers = params.filter((p) => p.in === 'header')
  const body = bodyOf(o.op, types, hint)
  const response = responseOf(o.op)
  const returns = response ? types.typeOf(response, `${hint}Response`) : 'None'
  const optIn = OPT_IN_RETRY.has(`${o.method} ${o.path}`)

  const positional = [...path.map((p) => `${p.py}: ${pyStr(p.type)}`), ...body.params]
  const keywords = [...query, ...headers].map(kwarg)
  if (optIn) keywords.push('retry: bool = False')
  const signature = ['self', ...positional, ...(keywords.length ? ['*', ...keywords] : [])]
  const args = [JSON.stringify(o.method), pathExpr(o.path, params)]
  if (query.length) args.push(`query=${dictExpr(query)}`)
  if (headers.length) args.push(`headers=${dictExpr(headers)}`)
  args.push(...body.args)
  if (optIn) args.push('retry=retry')
  const retryNote = optIn ? ['', 'Not retried unless retry=True: the API has no idempotency key, so a retried request runs again.'] : []
  const out = [
    `    def ${name}(${signature.join(', ')}) -> ${pyStr(returns)}:`,
    ...docstring(o, o.op, retryNote),
    returns === 'None' ? `        self._call(${args.join(', ')})` : `        return cast(${pyStr(returns)}, self._call(${args.join(', ')}))`,
  ]

  const paging = query.some((p) => p.name === 'limit') && query.some((p) => p.name === 'offset') ? pagingOf(response, types, schemas, hint) : null
  if (!paging) return [out.join('\n')]
  const filters = query.filter((p) => p.name !== 'limit' && p.name !== 'offset')
  const iterSig = ['self', ...path.map((p) => `${p.py}: ${pyStr(p.type)}`), '*', ...filters.map(kwarg), 'page_size: "int | None" = None', 'offset: int = 0']
  const iter = [
    `    def iter_${name}(${iterSig.join(', ')}) -> ${pyStr(`PageIterator[${paging.item}]`)}:`,
    ...docstring(o, {}, ['', `Every row of ${name}, fetched page by page (limit=page_size, else the server's default) from offset.`]),
    `        pages = self._paginate(${JSON.stringify(o.method)}, ${pathExpr(o.path, params)}, ${dictExpr(filters)}, page_size=page_size, offset=offset, body_pages=${paging.bodyPages ? 'True' : 'False'})`,
    `        return cast(${pyStr(`PageIterator[${paging.item}]`)}, pages)`,
  ]
  return [out.join('\n'), iter.join('\n')]
}
