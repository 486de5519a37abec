import { isToken, isWs, quote, scanQuoted, skipWs } from './charset.js'
import { Params, paramText, parseHeaderParams } from './params.js'
import { parseUri, type Uri } from './uri.js'

/**
 * The value of From, To, Contact, Route, Record-Route, Reply-To and Refer-To (§20, RFC 3515 §2.1):
 * ( name-addr / addr-spec ) *( SEMI generic-param ), where
 * name-addr = [ display-name ] LAQUOT addr-spec RAQUOT and display-name = *(token LWS) / quoted-string.
 */
export class NameAddr {
  constructor(
    readonly uri: Uri,
    readonly params: Params = Params.empty,
    /** Unquoted; undefined when the value had none. */
    readonly displayName?: string,
  ) {}

  /** The tag parameter of From and To (§19.3). */
  get tag(): string | undefined {
    return paramText(this.params.get('tag'))
  }

  /** Always the name-addr form, which §20 allows for every URI. */
  serialize(): string {
    const name = this.displayName === undefined ? '' : `${quote(this.displayName)} `
    return `${name}<${this.uri.serialize()}>${this.params.serialize()}`
  }

  /**
   * Parses one value (already split from a list). `nameAddrOnly` refuses the addr-spec form,
   * as Route and Record-Route do (route-param = name-addr *( SEMI rr-param )).
   */
  static parse(value: string, options: { nameAddrOnly?: boolean } = {}): NameAddr | undefined {
    const s = value
    let i = skipWs(s, 0)
    let displayName: string | undefined
    let lt = -1
    if (s[i] === '"') {
      const q = scanQuoted(s, i)
      if (!q) return undefined
      displayName = q.text
      i = skipWs(s, q.end)
      if (s[i] !== '<') return undefined
      lt = i
    } else {
      const candidate = s.indexOf('<', i)
      if (candidate >= 0) {
        const words = splitWords(s.slice(i, candidate))
        // Tokens alone before '<' make a display name; anything else means '<' sits later, in a parameter.
        if (words.every(isToken)) {
          lt = candidate
          if (words.length > 0) displayName = words.join(' ')
        }
      }
    }
    let uriText: string
    let paramsAt: number
    if (lt >= 0) {
      const gt = s.indexOf('>', lt)
      if (gt < 0) return undefined
      uriText = s.slice(lt + 1, gt)
      paramsAt = gt + 1
    } else {
      if (options.nameAddrOnly) return undefined
      let end = i
      while (end < s.length && s[end] !== ';' && !isWs(s.charCodeAt(end))) end++
      uriText = s.slice(i, end)
      // §20.10: a URI holding a comma, question mark or semicolon must be within angle brackets.
      if (uriText.includes('?') || uriText.includes(',')) return undefined
      paramsAt = end
    }
    // RFC 4475 §3.1.2.14: no LWS inside the angle brackets.
    for (let k = 0; k < uriText.length; k++) if (isWs(uriText.charCodeAt(k))) return undefined
    const uri = parseUri(uriText)
    const params = parseHeaderParams(s, paramsAt)
    if (!uri || !params) return undefined
    return new NameAddr(uri, params, displayName)
  }
}

function splitWords(s: string): string[] {
  return s.split(/[ \t]+/).filter((w) => w !== '')
}
