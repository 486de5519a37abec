import type { Db } from './database.js'
import { UsersRepo } from './repos/users.js'
import { OrganizationsRepo } from './repos/organizations.js'
import { AuthSessionsRepo } from './repos/auth-sessions.js'
import { EmailTokensRepo } from './repos/email-tokens.js'
import { MailOutboxRepo } from './repos/mail-outbox.js'
import { ApiKeysRepo } from './repos/api-keys.js'
import { ProjectsRepo } from './repos/projects.js'
import { RolesRepo } from './repos/roles.js'
import { MembersRepo } from './repos/members.js'
import { InvitationsRepo } from './repos/invitations.js'
import { AuditRepo } from './repos/audit.js'
import { RequestLogsRepo } from './repos/request-logs.js'
import { WorkflowsRepo } from './repos/workflows.js'
import { CredentialsRepo } from './repos/credentials.js'
import { SessionsRepo } from './repos/sessions.js'
import { CallsRepo } from './repos/calls.js'
import { KnowledgeRepo } from './repos/knowledge.js'
import { WebhooksRepo } from './repos/webhooks.js'
import { WebCallTokensRepo } from './repos/web-call-tokens.js'
import { SipTrunksRepo } from './repos/sip-trunks.js'
import { PhoneNumbersRepo } from './repos/phone-numbers.js'
import { EntitlementsRepo } from './repos/entitlements.js'
import { AnalysisRepo } from './repos/analysis.js'
import { AutomationsRepo } from './repos/automations.js'
import { AutomationRunsRepo } from './repos/automation-runs.js'
import { ToolsRepo } from './repos/tools.js'
import { TestSuitesRepo } from './repos/test-suites.js'
import { TestRunsRepo } from './repos/test-suites-runs.js'

export { openDatabase, migrate, MigrationError, MIGRATIONS_DIR, type Db } from './database.js'
export type { UserRow } from './repos/users.js'
export type { OrganizationRow, MembershipRow } from './repos/organizations.js'
export type { AuthSessionRow } from './repos/auth-sessions.js'
export type { EmailTokenPurpose } from './repos/email-tokens.js'
export type { MailRow } from './repos/mail-outbox.js'
export type { ApiKeyRow } from './repos/api-keys.js'
export type { ProjectRow, EnvironmentRow } from './repos/projects.js'
export type { RoleRow } from './repos/roles.js'
export type { MemberRow, MemberOrganizationRow } from './repos/members.js'
export type { InvitationRow } from './repos/invitations.js'
export type { AuditRow, NewAuditRow, AuditFilter } from './repos/audit.js'
export type { RequestLogRow, NewRequestLog, RequestLogFilter } from './repos/request-logs.js'
export type { WorkflowRow, WorkflowSummaryRow, WorkflowVersionRow, Scope, PageRequest } from './repos/workflows.js'
export type { CredentialRow } from './repos/credentials.js'
export type { SessionRow, SessionEventRow, AbandonedSession, SessionStatus, SessionChannel, SessionFilter } from './repos/sessions.js'
export type { CallRow, CallFilter } from './repos/calls.js'
export type { KnowledgeDocumentRow, KnowledgeDocumentSummaryRow, NewKnowledgeChunk, KnowledgeSearchRow } from './repos/knowledge.js'
export type { WebhookEndpointRow, WebhookDeliveryRow, WebhookAttemptRow, WebhookDeliveryStatus, AttemptResult } from './repos/webhooks.js'
export type { SipTrunkRow, NewSipTrunk, SipTrunkChanges, TrunkRegistrationState } from './repos/sip-trunks.js'
export type { PhoneNumberRow, PhoneNumberChanges } from './repos/phone-numbers.js'
export type { OrganizationPlanRow, FeatureFlagRow, OrganizationUsage } from './repos/entitlements.js'
export type { AnalysisJobRow, AnalysisJobStatus } from './repos/analysis.js'
export type { AutomationRow, AutomationChanges, AutomationScope } from './repos/automations.js'
export type { AutomationRunRow, AutomationAttemptRow, AutomationRunStatus, AutomationAttemptTrigger, AttemptEnd } from './repos/automation-runs.js'
export type { ToolRow, ToolVersionRow, NewToolVersion } from './repos/tools.js'
export type { TestSuiteRow, TestSuiteChanges } from './repos/test-suites.js'
export type { TestRunRow, TestRunCaseRow, TestRunStatus, TestCaseStatus, CaseEnd } from './repos/test-suites-runs.js'
export { ENVIRONMENT_SLUGS } from './repos/organizations.js'
export { tenancyVersions, TenancyVersions, type VersionStamp } from './tenancy-versions.js'

export interface Repos {
  users: UsersRepo
  organizations: OrganizationsRepo
  authSessions: AuthSessionsRepo
  emailTokens: EmailTokensRepo
  mailOutbox: MailOutboxRepo
  apiKeys: ApiKeysRepo
  projects: ProjectsRepo
  roles: RolesRepo
  members: MembersRepo
  invitations: InvitationsRepo
  audit: AuditRepo
  requestLogs: RequestLogsRepo
  workflows: WorkflowsRepo
  credentials: CredentialsRepo
  sessions: SessionsRepo
  calls: CallsRepo
  knowledge: KnowledgeRepo
  webhooks: WebhooksRepo
  webCallTokens: WebCallTokensRepo
  sipTrunks: SipTrunksRepo
  phoneNumbers: PhoneNumbersRepo
  entitlements: EntitlementsRepo
  analysis: AnalysisRepo
  automations: AutomationsRepo
  automationRuns: AutomationRunsRepo
  tools: ToolsRepo
  testSuites: TestSuitesRepo
  testRuns: TestRunsRepo
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
    projects: new ProjectsRepo(db),
    roles: new RolesRepo(db),
    members: new MembersRepo(db),
    invitations: new InvitationsRepo(db),
    audit: new AuditRepo(db),
    requestLogs: new RequestLogsRepo(db),
    workflows: new WorkflowsRepo(db),
    credentials: new CredentialsRepo(db),
    sessions: new SessionsRepo(db),
    calls: new CallsRepo(db),
    knowledge: new KnowledgeRepo(db),
    webhooks: new WebhooksRepo(db),
    webCallTokens: new WebCallTokensRepo(db),
    sipTrunks: new SipTrunksRepo(db),
    phoneNumbers: new PhoneNumbersRepo(db),
    entitlements: new EntitlementsRepo(db),
    analysis: new AnalysisRepo(db),
    automations: new AutomationsRepo(db),
    automationRuns: new AutomationRunsRepo(db),
    tools: new ToolsRepo(db),
    testSuites: new TestSuitesRepo(db),
    testRuns: new TestRunsRepo(db),
    transaction: (fn) => db.transaction(fn)(),
  }
}
