// Header field names: case-insensitive (§7.3.1), with compact forms (§7.3.3 and the IANA SIP
// header registry), lists that may be combined with commas, and fields that may appear once.

const KNOWN = [
  'Accept',
  'Accept-Contact',
  'Accept-Encoding',
  'Accept-Language',
  'Alert-Info',
  'Allow',
  'Allow-Events',
  'Authentication-Info',
  'Authorization',
  'Call-ID',
  'Call-Info',
  'Contact',
  'Content-Disposition',
  'Content-Encoding',
  'Content-Language',
  'Content-Length',
  'Content-Type',
  'CSeq',
  'Date',
  'Error-Info',
  'Event',
  'Expires',
  'From',
  'History-Info',
  'Identity',
  'Identity-Info',
  'In-Reply-To',
  'Max-Forwards',
  'MIME-Version',
  'Min-Expires',
  'Min-SE',
  'Organization',
  'P-Asserted-Identity',
  'P-Preferred-Identity',
  'Path',
  'Priority',
  'Privacy',
  'Proxy-Authenticate',
  'Proxy-Authorization',
  'Proxy-Require',
  'RAck',
  'Reason',
  'Record-Route',
  'Refer-To',
  'Referred-By',
  'Reject-Contact',
  'Replaces',
  'Reply-To',
  'Request-Disposition',
  'Require',
  'Retry-After',
  'Route',
  'RSeq',
  'Server',
  'Service-Route',
  'Session-Expires',
  'Subject',
  'Subscription-State',
  'Supported',
  'Timestamp',
  'To',
  'Unsupported',
  'User-Agent',
  'Via',
  'Warning',
  'WWW-Authenticate',
]

/** Compact forms: RFC 3261 §7.3.3 (i m e l c f s k t v), RFC 3515 (r), RFC 6665 (o u), others from the IANA registry. */
export const COMPACT_FORMS: Readonly<Record<string, string>> = {
  a: 'Accept-Contact',
  b: 'Referred-By',
  c: 'Content-Type',
  d: 'Request-Disposition',
  e: 'Content-Encoding',
  f: 'From',
  i: 'Call-ID',
  j: 'Reject-Contact',
  k: 'Supported',
  l: 'Content-Length',
  m: 'Contact',
  n: 'Identity-Info',
  o: 'Event',
  r: 'Refer-To',
  s: 'Subject',
  t: 'To',
  u: 'Allow-Events',
  v: 'Via',
  x: 'Session-Expires',
  y: 'Identity',
}

const CANONICAL = new Map<string, string>()
for (const name of KNOWN) CANONICAL.set(name.toLowerCase(), name)
for (const [short, name] of Object.entries(COMPACT_FORMS)) CANONICAL.set(short, name)

/** The canonical spelling of a known name or compact form; an unknown name as received. */
export function canonicalName(name: string): string {
  return CANONICAL.get(name.toLowerCase()) ?? name
}

/**
 * Fields whose grammar is a comma-separated list (`#element` in §25.1), which §7.3.1 allows to
 * be combined on one line. Any field not named here is never split: that keeps challenges and
 * credentials (whose parameters are comma-separated), Date, and unknown fields whole.
 */
export const LIST_HEADERS: ReadonlySet<string> = new Set([
  'Accept',
  'Accept-Contact',
  'Accept-Encoding',
  'Accept-Language',
  'Alert-Info',
  'Allow',
  'Allow-Events',
  'Call-Info',
  'Contact',
  'Content-Encoding',
  'Content-Language',
  'Error-Info',
  'History-Info',
  'In-Reply-To',
  'P-Asserted-Identity',
  'P-Preferred-Identity',
  'Path',
  'Proxy-Require',
  'Reason',
  'Record-Route',
  'Reject-Contact',
  'Require',
  'Route',
  'Service-Route',
  'Supported',
  'Unsupported',
  'Via',
  'Warning',
])

/** Lists whose every element is validated: an empty element there is an error, not skipped. */
export const STRICT_LISTS: ReadonlySet<string> = new Set(['Via', 'Contact', 'Route', 'Record-Route'])

/** Fields that may appear at most once (RFC 4475 §3.3.8 and §3.3.9 answer repeats with 400). */
export const SINGLE_HEADERS: ReadonlySet<string> = new Set([
  'Call-ID',
  'Content-Length',
  'Content-Type',
  'CSeq',
  'Date',
  'Event',
  'Expires',
  'From',
  'Max-Forwards',
  'Refer-To',
  'Subscription-State',
  'To',
])
