import { z } from 'zod'
import { isHost, parseCidr, parseHostPort } from '../../telephony/index.js'

/** Trunks per environment: a carrier account rarely needs more than a handful. */
export const MAX_TRUNKS = 50
export const MAX_ALLOWED_SOURCES = 32

// SIP's user part (RFC 3261 §25.1 unreserved and user-unreserved characters), without escapes:
// what carriers hand out as account names and numbers.
const USER = /^[A-Za-z0-9\-_.!~*'()&=+$,;?/]{1,64}$/
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse control characters
const NO_CONTROL = /^[^\x00-\x1f\x7f]*$/

const Host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .refine(isHost, 'Must be a host name or an IP address, without scheme or port')
  .describe(
    "The carrier's registrar / SIP proxy: REGISTER and outbound INVITEs go there. Private, loopback and metadata addresses are refused unless the operator allows them (OZAN_ALLOW_PRIVATE_CIDRS).",
  )
const HostPort = z
  .string()
  .trim()
  .max(260)
  .refine((v) => parseHostPort(v) !== undefined, 'Must be host, host:port, [IPv6] or [IPv6]:port')
const User = z.string().trim().regex(USER, "Letters, digits and - _ . ! ~ * ' ( ) & = + $ , ; ? / only (at most 64)")
const Password = z
  .string()
  .min(1)
  .max(256)
  .regex(NO_CONTROL, 'Must not contain control characters')
  .describe('Digest password. Write-only: stored encrypted, reads report only password_set.')
const Cidr = z
  .string()
  .trim()
  .max(64)
  .refine((v) => parseCidr(v) !== undefined, 'Must be an IP address or a CIDR range such as 203.0.113.0/24')
const AllowedSources = z
  .array(Cidr)
  .max(MAX_ALLOWED_SOURCES)
  .describe(
    `Addresses (or CIDR ranges) whose INVITEs are taken as this trunk's without digest authentication, at most ${MAX_ALLOWED_SOURCES}. An INVITE from anywhere else must authenticate.`,
  )

const fields = {
  name: z.string().trim().min(1).max(100),
  host: Host,
  port: z.number().int().min(1).max(65_535).default(5060),
  transport: z.enum(['udp', 'tcp']).default('udp'),
  outbound_proxy: HostPort.nullable().describe('host[:port] every request is routed through, or null.'),
  domain: z
    .string()
    .trim()
    .max(253)
    .refine(isHost, 'Must be a host name or an IP address')
    .nullable()
    .describe('SIP domain of From, To and the REGISTER Request-URI; null means host.'),
  username: User.nullable().describe('The account: the user part of From and of the registered address.'),
  auth_username: User.nullable().describe('Digest user name when it differs from username.'),
  register: z.boolean().default(false).describe('Keep a registration with the carrier (needs username); the trunk then takes calls to its registered contact.'),
  register_expires_s: z.number().int().min(60).max(86_400).default(600).describe('Registration lifetime asked for; refreshed before it runs out.'),
  allowed_sources: AllowedSources,
}

export const SipTrunkCreate = z
  .object({
    ...fields,
    outbound_proxy: fields.outbound_proxy.default(null),
    domain: fields.domain.default(null),
    username: fields.username.default(null),
    auth_username: fields.auth_username.default(null),
    password: Password.optional(),
    allowed_sources: AllowedSources.default([]),
  })
  .superRefine((b, ctx) => {
    if (b.register && b.username === null) ctx.addIssue({ code: 'custom', path: ['username'], message: 'Registration needs a username' })
  })
  .meta({ id: 'SipTrunkCreate' })

export const SipTrunkUpdate = z
  .object({
    name: fields.name.optional(),
    host: Host.optional(),
    port: z.number().int().min(1).max(65_535).optional(),
    transport: z.enum(['udp', 'tcp']).optional(),
    outbound_proxy: fields.outbound_proxy.optional(),
    domain: fields.domain.optional(),
    username: fields.username.optional(),
    auth_username: fields.auth_username.optional(),
    password: Password.nullable().optional().describe('A new password, or null to remove it. Left out: unchanged.'),
    register: z.boolean().optional(),
    register_expires_s: z.number().int().min(60).max(86_400).optional(),
    allowed_sources: AllowedSources.optional(),
  })
  .meta({ id: 'SipTrunkUpdate', description: 'Fields left out stay as they are.' })

export const SipTrunkResponse = z
  .object({
    id: z.uuid(),
    name: z.string(),
    host: z.string(),
    port: z.number().int(),
    transport: z.enum(['udp', 'tcp']),
    outbound_proxy: z.string().nullable(),
    domain: z.string().nullable(),
    username: z.string().nullable(),
    auth_username: z.string().nullable(),
    password_set: z.boolean(),
    register: z.boolean(),
    register_expires_s: z.number().int(),
    allowed_sources: z.array(z.string()),
    registration: z
      .object({
        state: z.enum(['unregistered', 'registering', 'registered', 'failed']),
        error: z.string().nullable().describe('Why the last attempt failed (e.g. "403 Forbidden", "timeout").'),
        changed_at: z.iso.datetime().nullable(),
        registered_until: z.iso.datetime().nullable(),
      })
      .describe('As last seen by the SIP service; unregistered while register is false.'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'SipTrunkResponse' })

export const SipTrunkPath = z.object({ trunk_id: z.uuid() })

export type SipTrunkCreateT = z.output<typeof SipTrunkCreate>
export type SipTrunkUpdateT = z.output<typeof SipTrunkUpdate>
export type SipTrunkResponseT = z.output<typeof SipTrunkResponse>
