import { defineRoute } from '../http/route.js'
import type { AccountService } from './service.js'
import {
  ForgotPasswordRequest,
  LoginRequest,
  RefreshRequest,
  RegisterRequest,
  ResendVerificationQuery,
  ResetPasswordRequest,
  TokenResponse,
  UserResponse,
  VerifyEmailRequest,
} from './schema.js'

const tag = 'Authentication and account'

export function authRoutes(accounts: AccountService) {
  return [
    defineRoute({
      operationId: 'auth_register', method: 'post', path: '/api/v1/auth/register', auth: 'P', tag,
      summary: 'Create an account, its first organization, and sign in',
      body: RegisterRequest, status: 201, response: TokenResponse, errors: ['email_taken'],
      handler: ({ body, req }) => accounts.register(body, req),
    }),
    defineRoute({
      operationId: 'auth_login', method: 'post', path: '/api/v1/auth/login', auth: 'P', tag,
      summary: 'Sign in with email and password',
      description: 'Failed attempts are throttled per account and client address, per account across addresses (addresses that signed in before still pass that ceiling) and per client address (429 with Retry-After).',
      body: LoginRequest, status: 200, response: TokenResponse, errors: ['invalid_credentials', 'rate_limited'],
      handler: ({ body, req }) => accounts.login(body.email, body.password, req),
    }),
    defineRoute({
      operationId: 'auth_refresh', method: 'post', path: '/api/v1/auth/refresh', auth: 'P', tag,
      summary: 'Exchange a refresh token for a new token pair',
      description: 'Refresh tokens rotate: each is single use. Presenting a used one ends the whole session.',
      body: RefreshRequest, status: 200, response: TokenResponse, errors: ['authentication_required'],
      handler: ({ body, req }) => accounts.refresh(body.refresh_token, req),
    }),
    defineRoute({
      operationId: 'auth_logout', method: 'post', path: '/api/v1/auth/logout', auth: 'S', tag,
      summary: 'End the current dashboard session', status: 204, audit: { action: 'session.logout', resource: 'session' },
      handler: ({ auth }) => accounts.logout(auth),
    }),
    defineRoute({
      operationId: 'auth_verify_email', method: 'post', path: '/api/v1/auth/verify-email', auth: 'P', tag,
      summary: 'Confirm an email address with the emailed token, and sign in',
      body: VerifyEmailRequest, status: 200, response: TokenResponse, errors: ['invalid_token'],
      handler: ({ body, req }) => accounts.verifyEmail(body.token, req),
    }),
    defineRoute({
      operationId: 'auth_resend_verification', method: 'post', path: '/api/v1/auth/resend-verification', auth: 'A', tag,
      summary: 'Send the verification email again (no-op once verified)',
      query: ResendVerificationQuery, status: 204, audit: { action: 'user.verification_resent', resource: 'user' },
      handler: ({ auth, query }) => accounts.resendVerification(auth, query.locale),
    }),
    defineRoute({
      operationId: 'auth_forgot_password', method: 'post', path: '/api/v1/auth/forgot-password', auth: 'P', tag,
      summary: 'Email a password-reset link',
      description: 'Answers 204 whether or not the email has an account. Throttled per email and per client address.',
      body: ForgotPasswordRequest, status: 204, errors: ['rate_limited'],
      handler: ({ body, req }) => accounts.forgotPassword(body.email, body.locale, req),
    }),
    defineRoute({
      operationId: 'auth_reset_password', method: 'post', path: '/api/v1/auth/reset-password', auth: 'P', tag,
      summary: 'Set a new password with the emailed token; ends every other session',
      body: ResetPasswordRequest, status: 200, response: TokenResponse, errors: ['invalid_token'],
      handler: ({ body, req }) => accounts.resetPassword(body.token, body.password, req),
    }),
    defineRoute({
      operationId: 'auth_me', method: 'get', path: '/api/v1/auth/me', auth: 'A', tag,
      summary: 'The signed-in user (or the creator of the API key) and the organization acted in',
      status: 200, response: UserResponse,
      handler: ({ auth }) => accounts.me(auth),
    }),
  ]
}
