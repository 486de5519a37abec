import { isToken, isWs, skipWs } from './charset.js'
import { Params, paramText, parseHeaderParams } from './params.js'

/**
 * Content-Type = media-type = m-type SLASH m-subtype *( SEMI m-parameter ) (§20.15).
 * Type and subtype are case-insensitive and kept lower-cased.
 */
export class MediaType {
  constructor(
    readonly type: string,
    readonly subtype: string,
    readonly params: Params = Params.empty,
  ) {}

  /** `type/subtype`, e.g. `application/sdp`. */
  get essence(): string {
    return `${this.type}/${this.subtype}`
  }

  /** A parameter's text, quotes removed (e.g. the boundary of a multipart body). */
  param(name: string): string | undefined {
    return paramText(this.params.get(name))
  }

  serialize(): string {
    return `${this.essence}${this.params.serialize()}`
  }

  static parse(value: string): MediaType | undefined {
    let i = skipWs(value, 0)
    const typeStart = i
    while (i < value.length && value[i] !== '/' && !isWs(value.charCodeAt(i))) i++
    const type = value.slice(typeStart, i)
    i = skipWs(value, i)
    if (value[i] !== '/') return undefined
    i = skipWs(value, i + 1)
    const subStart = i
    while (i < value.length && value[i] !== ';' && !isWs(value.charCodeAt(i))) i++
    const subtype = value.slice(subStart, i)
    const params = parseHeaderParams(value, i)
    if (!isToken(type) || !isToken(subtype) || !params) return undefined
    for (const [, v] of params.entries()) if (v === null) return undefined // m-parameter needs a value
    return new MediaType(type.toLowerCase(), subtype.toLowerCase(), params)
  }
}
