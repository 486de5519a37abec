import type { Db } from './database.js'
import { UsersRepo } from './repos/users.js'
import { OrganizationsRepo } from './repos/organizations.js'
import { AuthSessionsRepo } from './repos/auth-sessions.js'
import { EmailTokensRepo } from './repos/email-tokens.js'
import { MailOutboxRepo } from './repos/mail-outbox.js'
import { ApiKeysRepo } from './repos/api-keys.js'

export { openDatabase, migrate, MigrationError, MIGRATIONS_DIR, type Db } from './database.js'
export type { UserRow } from './repos/users.js'
export type { OrganizationRow, MembershipRow } from './repos/organizations.js'
export type { AuthSessionRow } from './repos/auth-sessions.js'
export type { EmailTokenPurpose } from './repos/email-tokens.js'
export type { MailRow } from './repos/mail-outbox.js'
export type { ApiKeyRow } from './repos/api-keys.js'

export interface Repos {
  users: UsersRepo
  organizations: OrganizationsRepo
  authSessions: AuthSessionsRepo
  emailTokens: EmailTokensRepo
  mailOutbox: MailOutboxRepo
  apiKeys: ApiKeysRepo
  /** Runs `fn` in one transaction (nested calls become savepoints). */
  transaction<T>(fn: () => T): T
}

export function createRepos(db: Db): Repos {
  return {
    users: new UsersRepo(db),
    organizations: new OrganizationsRepo(db),
    authSessions: new AuthSessionsRepo(db),
    emailTokens: new EmailTokensRepo(db),
    mailOutbox: new MailOutboxRepo(db),
    apiKeys: new ApiKeysRepo(db),
    transaction: (fn) => db.transaction(fn)(),
  }
}
