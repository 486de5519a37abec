import Mustache from 'mustache'

/** Mustache token kinds that read a variable: {{x}}, {{{x}}}, {{& x}}, sections {{#x}} and {{^x}}. */
const READS = new Set(['name', '&', '#', '^'])

export interface TemplateCheck {
  error: string | null
  /** First segment of each name read ("order" for {{order.total}}). */
  variables: Set<string>
  /** Each full name read, as written. */
  names: Set<string>
}

type Token = [string, string, number, number, Token[]?]

/** Parses a template; returns a syntax error or the first segment of every variable it reads. */
export function checkTemplate(text: string): TemplateCheck {
  const variables = new Set<string>()
  const names = new Set<string>()
  let tokens: Token[]
  try {
    tokens = Mustache.parse(text) as Token[]
  } catch (err) {
    return { error: (err as Error).message, variables, names }
  }
  let error: string | null = null
  const walk = (list: Token[], depth: number): void => {
    for (const [kind, value, , , children] of list) {
      if (kind === '>') error ??= 'Partials ({{> name}}) are not supported'
      if (READS.has(kind) && value !== '.' && depth === 0) {
        variables.add(value.split('.')[0]!)
        names.add(value)
      }
      if (children) walk(children, kind === '#' ? depth + 1 : depth)
    }
  }
  walk(tokens, 0)
  return { error, variables, names }
}

/**
 * Work one render may do. Sections over lists multiply (three nested sections over a 100-item list
 * render 10^6 times), and rendering is synchronous: without a budget one template could hold the
 * event loop for minutes. Real prompts stay far below both.
 */
export const RENDER_LIMITS = { tokens: 50_000, chars: 256 * 1024 } as const

/** A render went over RENDER_LIMITS; the runtime ends the session with `template_too_large`. */
export class TemplateBudgetError extends Error {
  constructor(readonly limit: 'tokens' | 'chars') {
    super(
      limit === 'tokens'
        ? `A template needed more than ${RENDER_LIMITS.tokens} render steps`
        : `A template rendered to more than ${RENDER_LIMITS.chars} characters`,
    )
    this.name = 'TemplateBudgetError'
  }
}

/**
 * Names resolve to own properties only. Mustache's own lookup follows the prototype chain and
 * calls what it finds, so {{__defineGetter__}} (inside a section, where names are not checked)
 * threw from Object.prototype; JSON values hold no functions to call.
 */
class OwnContext extends Mustache.Context {
  override push(view: unknown): Mustache.Context {
    return new OwnContext(view, this)
  }

  override lookup(name: string): unknown {
    if (name === '.') return this.view
    const names = name.split('.')
    for (let context: Mustache.Context | undefined = this; context; context = context.parent) {
      let value: unknown = context.view
      let found = true
      for (const key of names) {
        if (value === null || value === undefined || !Object.hasOwn(Object(value), key)) {
          found = false
          break
        }
        value = (value as Record<string, unknown>)[key]
      }
      if (found) return typeof value === 'function' ? undefined : value
    }
    return undefined
  }
}

class BoundedWriter extends Mustache.Writer {
  private tokens = 0
  private chars = 0

  override render(template: string, view: unknown, partials?: unknown, config?: unknown): string {
    this.tokens = 0
    this.chars = 0
    return super.render(template, new OwnContext(view), partials as undefined, config as undefined)
  }

  override renderTokens(tokens: unknown[][], context: Mustache.Context, partials?: unknown, originalTemplate?: string, config?: unknown): string {
    this.tokens += tokens.length
    if (this.tokens > RENDER_LIMITS.tokens) throw new TemplateBudgetError('tokens')
    return super.renderTokens(tokens as never, context, partials as undefined, originalTemplate, config as undefined)
  }

  // The output is the sum of these pieces: counting them bounds it before it is concatenated.
  override rawValue(token: string[]): string {
    return this.counted(super.rawValue(token))
  }

  override escapedValue(token: string[], context: Mustache.Context, config?: unknown): string {
    return this.counted(super.escapedValue(token, context, config as undefined))
  }

  override unescapedValue(token: string[], context: Mustache.Context): string {
    return this.counted(super.unescapedValue(token, context))
  }

  private counted(piece: string | undefined): string {
    this.chars += piece === undefined ? 0 : String(piece).length
    if (this.chars > RENDER_LIMITS.chars) throw new TemplateBudgetError('chars')
    return piece as string
  }
}

/** Parsed templates kept for reuse; Mustache's own cache keeps every template ever rendered. */
const CACHED_TEMPLATES = 500
const writer = new BoundedWriter()
const parsed = new Map<string, string>()
;(writer as unknown as { templateCache: Mustache.TemplateCache }).templateCache = {
  get: (key) => parsed.get(key),
  set: (key, value) => {
    if (parsed.size >= CACHED_TEMPLATES) parsed.delete(parsed.keys().next().value!)
    parsed.set(key, value)
  },
  clear: () => parsed.clear(),
}

/** Renders a template with plain-text output (speech, not HTML: nothing is escaped). */
export function renderTemplate(text: string, view: Record<string, unknown>): string {
  return writer.render(text, view, undefined, { escape: (v: unknown) => String(v) })
}
