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

/** Renders a template with plain-text output (speech, not HTML: nothing is escaped). */
export function renderTemplate(text: string, view: Record<string, unknown>): string {
  return Mustache.render(text, view, undefined, { escape: (v: unknown) => String(v) })
}
