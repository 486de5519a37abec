// SIP trunk registration (issue #21 item 3): a pure per-trunk state machine and the manager that
// runs one for every trunk set to register.
export {
  DEFAULT_REGISTRATION_MANAGER,
  RegistrationManager,
  type RegistrationClock,
  type RegistrationManagerOptions,
  type RegistrationUserAgent,
  systemRegistrationClock,
} from './manager.js'
export {
  grantedExpiresS,
  nextHop,
  type RegistrationRow,
  type RegistrationSettings,
  registerRequest,
  registrationSettings,
  retryAfterS,
  sameContactUri,
} from './register-request.js'
export {
  FAILURE_REASONS,
  type RegistrationAction,
  type RegistrationEventType,
  type RegistrationInput,
  type RegistrationState,
  TrunkRegistration,
  type TrunkRegistrationOptions,
} from './registration.js'
export { DEFAULT_REGISTRATION_TIMING, type RegistrationTiming, refreshAt, retryDelayMs } from './timing.js'
