import type { Lang } from './errors.js'

const SUPPORTED: readonly Lang[] = ['en', 'tr']

/** Picks en or tr from an Accept-Language header, honouring q-values (RFC 9110 §12.5.4). */
export function pickLanguage(header: string | undefined): Lang {
  if (!header) return 'en'
  let best: Lang = 'en'
  let bestQ = -1
  for (const part of header.slice(0, 512).split(',')) {
    const [rawTag = '', ...params] = part.split(';')
    const tag = rawTag.trim()
    // RFC 9110 §12.4.2: OWS may surround ";" and the parameter name "q" is case-insensitive.
    const qParam = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='))
    const q = qParam ? Number(qParam.slice(2)) : 1
    if (!Number.isFinite(q) || q <= 0) continue
    const primary = tag.toLowerCase().split('-')[0] as Lang
    const lang = tag === '*' ? 'en' : SUPPORTED.includes(primary) ? primary : null
    if (lang && q > bestQ) {
      best = lang
      bestQ = q
    }
  }
  return best
}
