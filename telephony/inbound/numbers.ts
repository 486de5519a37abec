import { SipUri, type SipRequest, TelUri } from '../../sip/index.js'

const E164 = /^\+[1-9][0-9]{1,14}$/

/**
 * A user part or tel: number as E.164, or undefined. RFC 3966's visual separators (- . ( )) are
 * dropped; digits without a + are taken as E.164 without its prefix, which is how most carriers
 * send a DID ("902125550123"). National formats (a leading 0) are not numbers we can route.
 */
export function asE164(user: string | undefined): string | undefined {
  if (user === undefined) return undefined
  const bare = user.split(';')[0]!.replace(/[-.()]/g, '')
  const withPlus = bare.startsWith('+') ? bare : `+${bare}`
  return E164.test(withPlus) ? withPlus : undefined
}

function userOf(uri: unknown): string | undefined {
  if (uri instanceof SipUri) return uri.user
  if (uri instanceof TelUri) return uri.number
  return undefined
}

/**
 * The numbers an INVITE may be for, most authoritative first: the Request-URI's user (§8.2.2.1),
 * then the To's (a carrier sending to a registered trunk addresses our Contact, the trunk's
 * account, and names the dialled number only in To).
 */
export function dialledNumbers(request: SipRequest): string[] {
  const found = [asE164(userOf(request.uri)), asE164(userOf(request.headers.to().uri))]
  return [...new Set(found.filter((n): n is string => n !== undefined))]
}

/** The caller as E.164 when From (or P-Asserted-Identity) names a number; else the From user as given, or "anonymous". */
export function callerNumber(request: SipRequest): string {
  const asserted = request.headers.get('P-Asserted-Identity')
  const match = asserted ? /<(?:sip|sips|tel):\+?([0-9][0-9-.()]*)[@;>]/.exec(asserted) : null
  if (match) return asE164(match[1]) ?? match[1]!
  const user = userOf(request.headers.from().uri)
  return asE164(user) ?? (user && /^[\w.+-]{1,64}$/.test(user) ? user : 'anonymous')
}
