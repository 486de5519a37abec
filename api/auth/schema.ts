import { z } from 'zod'

// Passwords are bounded in characters and bytes: argon2 cost grows with input, and a megabyte
// "password" must not become a cheap denial of service.
export const Password = z
  .string()
  .min(8)
  .max(128)
  .refine((p) => Buffer.byteLength(p) <= 256, 'Password must be at most 256 bytes')

/**
 * zod's own email pattern lets a domain label end in "-" and run past 63 characters; RFC 1035 §2.3.1
 * (relaxed by RFC 1123 §2.1 to a leading digit) allows neither: a label starts and ends with a letter or
 * digit and holds 63 octets at most. The local part is zod's, unchanged.
 */
const EMAIL_PATTERN = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/
export const Email = z.email({ pattern: EMAIL_PATTERN }).max(254)
export const Locale = z.enum(['en', 'tr'])
const EmailToken = z.string().min(16).max(256)

export const RegisterRequest = z
  .object({
    email: Email,
    password: Password,
    name: z.string().trim().min(1).max(100),
    organization_name: z.string().trim().min(1).max(100).optional(),
    locale: Locale.default('en'),
  })
  .meta({ id: 'RegisterRequest' })

export const LoginRequest = z.object({ email: z.string().max(254), password: z.string().max(1024) }).meta({ id: 'LoginRequest' })

export const VerifyEmailRequest = z.object({ token: EmailToken }).meta({ id: 'VerifyEmailRequest' })

export const ForgotPasswordRequest = z.object({ email: z.string().max(254), locale: Locale.optional() }).meta({ id: 'ForgotPasswordRequest' })

export const ResetPasswordRequest = z.object({ token: EmailToken, password: Password }).meta({ id: 'ResetPasswordRequest' })

export const RefreshRequest = z.object({ refresh_token: z.string().min(16).max(256) }).meta({ id: 'RefreshRequest' })

export const ResendVerificationQuery = z.object({ locale: Locale.optional() })

export const OrganizationRef = z.object({ id: z.uuid(), name: z.string() }).meta({ id: 'OrganizationRef', description: 'The organization the caller acts in.' })

export const UserResponse = z
  .object({
    id: z.uuid(),
    email: z.string(),
    name: z.string(),
    locale: Locale,
    email_verified: z.boolean(),
    created_at: z.iso.datetime(),
    organization: OrganizationRef,
    role: z.string().nullable().describe('The role key in the organization; null for a scoped key whose creator left.'),
    auth_method: z.enum(['session', 'api_key']),
  })
  .meta({ id: 'UserResponse' })

export const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().describe('Seconds until the access token expires.'),
    refresh_token: z.string().describe('Single use: POST /api/v1/auth/refresh returns a new pair.'),
    refresh_expires_in: z.number().int(),
    user: UserResponse,
  })
  .meta({ id: 'TokenResponse' })

export type UserResponseT = z.output<typeof UserResponse>
export type TokenResponseT = z.output<typeof TokenResponse>
