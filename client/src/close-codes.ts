/**
 * What a closed socket means to the page (docs/protocol.md §5). Pure. The engine refuses a token
 * by completing the upgrade and closing at once with 40xx (a browser cannot read the status of a
 * failed upgrade), so "opened, then closed with a code" is how every refusal arrives.
 */

export interface CallError {
  /** Stable, snake_case: the engine's close reason where it gave one, else the library's. */
  code: string
  message: string
}

/** The protocol's close codes, with the reason the engine sends and a message for people. */
export const CLOSE_CODES: Readonly<Record<number, CallError>> = {
  1001: { code: 'server_shutdown', message: 'The voice server is shutting down. Try again in a moment.' },
  1006: { code: 'connection_lost', message: 'The connection to the voice server was lost.' },
  1007: { code: 'invalid_utf8', message: 'The voice server refused a malformed message.' },
  1009: { code: 'message_too_large', message: 'The voice server refused a message that was too large.' },
  1011: { code: 'internal_error', message: 'The voice server failed. Try again.' },
  4001: { code: 'token_invalid', message: 'The call token is not valid.' },
  4002: { code: 'token_expired', message: 'The call token has expired. Request a new one.' },
  4003: { code: 'token_used', message: 'The call token was already used. Request a new one.' },
  4004: { code: 'token_foreign', message: 'The call token was not issued for this voice server.' },
  4005: { code: 'protocol_version_unsupported', message: 'The voice server does not speak this version of the call protocol.' },
  4029: { code: 'concurrency_limit', message: 'Too many calls are in progress. Try again shortly.' },
  4400: { code: 'protocol_error', message: 'The call ended after repeated malformed messages.' },
}

export const CONNECTION_FAILED: CallError = { code: 'connection_failed', message: 'Could not connect to the voice server.' }

const CODE_SHAPE = /^[a-z][a-z0-9_]{0,63}$/

/**
 * The error a close reports, or null for a normal end (1000, and 1005 "no status" that some
 * browsers report for a clean close without a code). `opened`: the socket had opened; a socket
 * that never opened failed to connect (refused, unreachable, TLS), whatever code the browser made up.
 */
export function closeError(code: number, reason: string, opened: boolean): CallError | null {
  if (!opened) return CONNECTION_FAILED
  if (code === 1000 || code === 1005) return null
  const known = CLOSE_CODES[code]
  // The engine's reason is the code (token_used …); an unknown code keeps a well-formed reason too.
  const fromServer = CODE_SHAPE.test(reason) ? reason : undefined
  if (known) return { code: fromServer ?? known.code, message: known.message }
  return { code: fromServer ?? 'connection_closed', message: `The voice server closed the call (code ${code}).` }
}
