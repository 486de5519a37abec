import { isToken, isWs, skipWs } from './charset.js'
import { Params, paramText, parseHeaderParams } from './params.js'
import { parseDeltaSeconds } from './scalars.js'

/** Reads the leading word of a value (up to LWS or ';') and the parameters after it. */
function wordAndParams(value: string): { word: string; params: Params } | undefined {
  let i = skipWs(value, 0)
  const start = i
  while (i < value.length && value[i] !== ';' && !isWs(value.charCodeAt(i))) i++
  const params = parseHeaderParams(value, i)
  return params ? { word: value.slice(start, i), params } : undefined
}

/**
 * Event = event-type *( SEMI event-param ) (RFC 6665 §8.4; compact form "o"), where
 * event-type = event-package *( "." event-template ), each a token without dots.
 */
export class EventHeader {
  constructor(
    readonly type: string,
    readonly params: Params = Params.empty,
  ) {}

  get id(): string | undefined {
    return paramText(this.params.get('id'))
  }

  serialize(): string {
    return `${this.type}${this.params.serialize()}`
  }

  static parse(value: string): EventHeader | undefined {
    const parsed = wordAndParams(value)
    if (!parsed?.word.split('.').every(isToken)) return undefined
    return new EventHeader(parsed.word, parsed.params)
  }
}

/**
 * Subscription-State = substate-value *( SEMI subexp-params ) (RFC 6665 §8.4): active, pending,
 * terminated or an extension token; reason, expires and retry-after among the parameters.
 */
export class SubscriptionState {
  constructor(
    readonly state: string,
    readonly params: Params = Params.empty,
  ) {}

  get expires(): number | undefined {
    const v = this.params.get('expires')
    return typeof v === 'string' ? parseDeltaSeconds(v) : undefined
  }

  get retryAfter(): number | undefined {
    const v = this.params.get('retry-after')
    return typeof v === 'string' ? parseDeltaSeconds(v) : undefined
  }

  get reason(): string | undefined {
    return paramText(this.params.get('reason'))
  }

  serialize(): string {
    return `${this.state}${this.params.serialize()}`
  }

  static parse(value: string): SubscriptionState | undefined {
    const parsed = wordAndParams(value)
    if (!parsed || !isToken(parsed.word)) return undefined
    for (const name of ['expires', 'retry-after']) {
      const v = parsed.params.get(name)
      if (v !== undefined && (v === null || parseDeltaSeconds(v) === undefined)) return undefined
    }
    return new SubscriptionState(parsed.word.toLowerCase(), parsed.params)
  }
}
