/**
 * JSON Schema (the OpenAPI document's components) → Python type expressions and TypedDicts, for
 * scripts/sdk/generate-python.ts. Pure: a document in, Python source text out.
 *
 * Every field annotation is a quoted forward reference (`"CallSummary | None"`): the classes may
 * refer to one another in any order, and no `from __future__ import annotations` is needed, which
 * would hide `NotRequired` from `__required_keys__` at run time.
 */

type Json = Record<string, unknown>

const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
)

/** A Python identifier for a schema id or a name from the document (`Body_knowledge-base_upload` → `Body_knowledge_base_upload`). */
export function identifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_]/g, '_')
  if (/^[0-9]/.test(id)) id = `_${id}`
  return KEYWORDS.has(id) ? `${id}_` : id
}

/** snake_case for a parameter or method name; Python keywords get a trailing underscore (`from_`). */
export function snake(name: string): string {
  const s = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase()
  return identifier(s || 'value')
}

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')

export const isIdentifier = (key: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !KEYWORDS.has(key)

const literal = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : v === null ? 'None' : typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v))

function union(parts: string[]): string {
  const unique = [...new Set(parts)]
  if (unique.includes('Any')) return 'Any'
  // None last, as Python writes optional types.
  const sorted = [...unique.filter((p) => p !== 'None'), ...unique.filter((p) => p === 'None')]
  return sorted.join(' | ') || 'Any'
}

/** The TypedDicts of a document: the components, plus one per inline object with properties. */
export class TypeEmitter {
  /** Python name → class source, in the order they were made. */
  private readonly classes = new Map<string, string>()
  private readonly names = new Map<string, string>()

  /** `multipart`: the ids of schemas sent as multipart/form-data, whose binary fields are file parts. */
  constructor(
    private readonly schemas: Record<string, Json>,
    private readonly multipart: ReadonlySet<string> = new Set(),
  ) {
    for (const id of Object.keys(schemas)) {
      const name = identifier(id)
      if ([...this.names.values()].includes(name)) throw new Error(`two schemas map to the Python name ${name}`)
      this.names.set(id, name)
    }
  }

  /** The Python name of a component schema. */
  nameOf(id: string): string {
    const name = this.names.get(id)
    if (!name) throw new Error(`unknown schema ${id}`)
    return name
  }

  /** Makes the components' TypedDicts (and aliases), in document order, each followed by the inline objects it made. */
  emitComponents(): void {
    for (const [id, schema] of Object.entries(this.schemas)) {
      const name = this.nameOf(id)
      if (schema.type === 'object' && schema.properties) this.typedDict(name, schema, this.multipart.has(id))
      else {
        // A union (e.g. WorkflowNode's node kinds): its variants become TypedDicts, the name an alias.
        this.classes.set(name, '')
        const doc = oneLine(schema.description)
        this.classes.set(name, `${name}: TypeAlias = ${pyStr(this.typeOf(schema, name))}${doc ? `  #: ${doc}` : ''}`)
      }
    }
  }

  /** Every TypedDict and alias made so far (the operations add their inline objects after the components). */
  sources(): string[] {
    return [...this.classes.values()]
  }

  /**
   * The Python type of a schema. `hint` names an inline object's TypedDict; `multipart` maps a
   * binary string to FileField (a file part) instead of bytes.
   */
  typeOf(schema: Json | undefined, hint: string, multipart = false): string {
    if (!schema || typeof schema !== 'object') return 'Any'
    if (typeof schema.$ref === 'string') return this.nameOf(schema.$ref.replace('#/components/schemas/', ''))
    if ('const' in schema) return `Literal[${literal(schema.const)}]`
    if (Array.isArray(schema.enum)) return `Literal[${schema.enum.map(literal).join(', ')}]`
    for (const key of ['anyOf', 'oneOf'] as const) {
      const members = schema[key]
      if (Array.isArray(members)) return union(members.map((m, i) => this.typeOf(m as Json, variantHint(hint, m as Json, i, members.length), multipart)))
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return this.typeOf(schema.allOf[0] as Json, hint, multipart)
    const type = schema.type
    if (Array.isArray(type)) return union(type.map((t) => this.typeOf({ ...schema, type: t }, hint, multipart)))
    switch (type) {
      case 'string':
        return schema.format === 'binary' ? (multipart ? 'FileField' : 'bytes') : 'str'
      case 'integer':
        return 'int'
      case 'number':
        return 'float'
      case 'boolean':
        return 'bool'
      case 'null':
        return 'None'
      case 'array':
        return `list[${this.typeOf(schema.items as Json | undefined, `${hint}Item`, multipart)}]`
      case 'object': {
        const props = schema.properties as Record<string, Json> | undefined
        if (props && Object.keys(props).length) return this.typedDict(this.freshName(hint), schema, multipart)
        const extra = schema.additionalProperties
        return extra && typeof extra === 'object' ? `dict[str, ${this.typeOf(extra as Json, `${hint}Value`, multipart)}]` : 'dict[str, Any]'
      }
      default:
        return 'Any'
    }
  }

  private freshName(hint: string): string {
    let name = identifier(hint)
    for (let i = 2; this.classes.has(name) || [...this.names.values()].includes(name); i++) name = `${identifier(hint)}${i}`
    return name
  }

  /** Writes one TypedDict (class syntax, or the functional form when a key is not an identifier) and returns its name. */
  private typedDict(name: string, schema: Json, multipart = false): string {
    if (this.classes.has(name)) return name
    this.classes.set(name, '') // reserve the name (and the order) before nested objects add theirs
    const props = (schema.properties ?? {}) as Record<string, Json>
    const required = new Set((schema.required ?? []) as string[])
    const fields = Object.entries(props).map(([key, prop]) => {
      const type = this.typeOf(prop, `${name}${pascal(key)}`, multipart)
      const quoted = pyStr(type)
      return { key, annotation: required.has(key) ? quoted : `NotRequired[${quoted}]`, doc: oneLine(prop.description) }
    })
    const doc = oneLine(schema.description)
    let source: string
    if (fields.every((f) => isIdentifier(f.key)) && fields.length) {
      const body = fields.flatMap((f) => [...(f.doc ? [`    #: ${f.doc}`] : []), `    ${f.key}: ${f.annotation}`])
      source = [`class ${name}(TypedDict):`, ...(doc ? [`    """${doc.replace(/"$/, '\\"')}"""`, ''] : []), ...body].join('\n')
    } else if (fields.length) {
      const body = fields.map((f) => `        ${JSON.stringify(f.key)}: ${f.annotation},${f.doc ? `  # ${f.doc}` : ''}`)
      source = [...(doc ? [`#: ${doc}`] : []), `${name} = TypedDict(`, `    ${JSON.stringify(name)},`, '    {', ...body, '    },', ')'].join('\n')
    } else {
      source = `${name} = dict[str, Any]${doc ? `  #: ${doc}` : ''}`
    }
    this.classes.set(name, source)
    return name
  }
}

/** A union member's TypedDict name: after its discriminator (`kind: "always"` → EdgeConditionAlways), else its position. */
function variantHint(hint: string, member: Json, i: number, count: number): string {
  const props = (member?.properties ?? {}) as Record<string, Json>
  const tag = Object.values(props).find((p) => typeof p?.const === 'string')?.const as string | undefined
  return tag ? `${hint}${pascal(tag)}` : `${hint}${count > 1 ? i + 1 : ''}`
}

/** A Python string literal: single quotes when the text holds double quotes (`'Literal["a"]'`). */
export function pyStr(text: string): string {
  return text.includes('"') && !text.includes("'") && !text.includes('\\') ? `'${text}'` : JSON.stringify(text)
}

/** A description as one comment line: no newlines, no triple quotes, at most 160 characters. */
export function oneLine(text: unknown): string {
  if (typeof text !== 'string') return ''
  const flat = text.replace(/\s+/g, ' ').replace(/"""/g, "'''").replace(/\\/g, '\\\\').trim()
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat
}
