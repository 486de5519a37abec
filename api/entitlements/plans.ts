import fs from 'node:fs'
import { z } from 'zod'
import { PRODUCT_FLAG_KEYS, type ProductFlag } from './flags.js'

/** What a plan can limit; null (or left out of the file) means no limit. */
export const LIMIT_KEYS = [
  'agents',
  'live_calls',
  'monthly_minutes',
  'knowledge_base_documents',
  'knowledge_base_bytes',
  'members',
  'webhook_endpoints',
  'api_keys',
] as const
export type LimitKey = (typeof LIMIT_KEYS)[number]

export interface Plan {
  key: string
  name: string
  description: string
  limits: Record<LimitKey, number | null>
  /** Product features the plan includes; an organization's flag can only turn an included one off. */
  features: Record<ProductFlag, boolean>
}

/** The plan of a server whose operator defined none: nothing is limited, so nothing changes. */
export const UNLIMITED_PLAN: Plan = Object.freeze({
  key: 'unlimited',
  name: 'Unlimited',
  description: 'No limits: the plan of a server whose operator has not defined plans (OZAN_PLANS_FILE).',
  limits: Object.fromEntries(LIMIT_KEYS.map((k) => [k, null])) as Record<LimitKey, null>,
  features: Object.fromEntries(PRODUCT_FLAG_KEYS.map((k) => [k, true])) as Record<ProductFlag, boolean>,
})

/** A plans file larger than this is not a plans file. */
export const MAX_PLANS_FILE_BYTES = 256 * 1024
export const MAX_PLANS = 50

const PlanKey = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'must be 1-40 lower-case letters, digits, _ or -, not starting with _ or -')
// Up to a petabyte: any real limit fits, a typo of extra zeros does not overflow anything.
const Limit = z.number().int().min(0).max(1e15).nullable().default(null)

const PlanSpec = z.strictObject({
  key: PlanKey,
  name: z.string().trim().min(1).max(100),
  description: z.string().max(500).default(''),
  limits: z
    .strictObject({
      ...(Object.fromEntries(LIMIT_KEYS.map((k) => [k, Limit])) as Record<LimitKey, typeof Limit>),
      // Whoever creates an organization is its first member.
      members: z.number().int().min(1).max(1e15).nullable().default(null),
    })
    .default(Object.fromEntries(LIMIT_KEYS.map((k) => [k, null])) as Record<LimitKey, null>),
  features: z
    .strictObject(Object.fromEntries(PRODUCT_FLAG_KEYS.map((k) => [k, z.boolean().default(true)])) as Record<ProductFlag, z.ZodDefault<z.ZodBoolean>>)
    .default(Object.fromEntries(PRODUCT_FLAG_KEYS.map((k) => [k, true])) as Record<ProductFlag, boolean>),
})

const PlansFile = z
  .strictObject({
    default_plan: PlanKey,
    plans: z.array(PlanSpec).min(1).max(MAX_PLANS),
  })
  .superRefine((f, ctx) => {
    const seen = new Set<string>()
    f.plans.forEach((p, i) => {
      if (seen.has(p.key)) ctx.addIssue({ code: 'custom', path: ['plans', i, 'key'], message: `"${p.key}" is defined twice` })
      seen.add(p.key)
    })
    if (!seen.has(f.default_plan)) ctx.addIssue({ code: 'custom', path: ['default_plan'], message: `"${f.default_plan}" is not one of the plans` })
  })

/** A plans file that cannot be used: start-up stops with this message (bin/ozan.ts prints it). */
export class PlansFileError extends Error {
  constructor(file: string, problems: string[]) {
    super(`invalid plans file OZAN_PLANS_FILE=${file}:\n  ${problems.join('\n  ')}`)
    this.name = 'PlansFileError'
  }
}

/** The operator's plans, and which one an organization without an assignment is on. */
export class PlanCatalog {
  readonly #byKey: ReadonlyMap<string, Plan>

  constructor(
    readonly plans: readonly Plan[],
    readonly defaultKey: string,
    /** The file they came from, or null for the built-in unlimited plan. */
    readonly source: string | null = null,
  ) {
    this.#byKey = new Map(plans.map((p) => [p.key, p]))
    if (!this.#byKey.has(defaultKey)) throw new Error(`default plan "${defaultKey}" is not in the catalog`)
  }

  get(key: string): Plan | undefined {
    return this.#byKey.get(key)
  }

  get default(): Plan {
    return this.#byKey.get(this.defaultKey)!
  }
}

/** The built-in catalog: one unlimited plan, every organization on it. */
export const unlimitedCatalog = () => new PlanCatalog([UNLIMITED_PLAN], UNLIMITED_PLAN.key)

/** Parses a plans file's text; throws PlansFileError naming every problem by its place in the file. */
export function parsePlans(text: string, file: string): PlanCatalog {
  if (Buffer.byteLength(text) > MAX_PLANS_FILE_BYTES) throw new PlansFileError(file, [`larger than ${MAX_PLANS_FILE_BYTES} bytes`])
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new PlansFileError(file, [`not valid JSON: ${(err as Error).message}`])
  }
  const parsed = PlansFile.safeParse(json)
  if (!parsed.success)
    throw new PlansFileError(
      file,
      parsed.error.issues.map((i) => `${pathOf(i.path)}: ${i.message}`),
    )
  const plans = parsed.data.plans.map((p): Plan => ({ ...p, limits: { ...p.limits }, features: { ...p.features } }))
  return new PlanCatalog(plans, parsed.data.default_plan, file)
}

/** The catalog of OZAN_PLANS_FILE, or the unlimited one when it is not set. */
export function loadPlans(file: string | null): PlanCatalog {
  if (file === null) return unlimitedCatalog()
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw new PlansFileError(file, [`cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`])
  }
  return parsePlans(text, file)
}

/**
 * Organizations the operator put on a plan the file no longer defines: start-up stops rather than
 * guess which plan they should now be on (another plan's limits could cut them off or lift theirs).
 */
export function assertAssignedPlansExist(catalog: PlanCatalog, assigned: readonly { plan_key: string; n: number }[]): void {
  const missing = assigned.filter((a) => !catalog.get(a.plan_key))
  if (!missing.length) return
  throw new PlansFileError(
    catalog.source ?? '(not set)',
    missing.map(
      (m) =>
        `${m.n} organization${m.n === 1 ? ' is' : 's are'} on plan "${m.plan_key}", which the file does not define: define it again, or move them (bin/ozan-plans.ts assign / unassign)`,
    ),
  )
}

function pathOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), '') || '(file)'
}
