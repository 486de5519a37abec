/**
 * Which REST operations the MCP server offers as tools, by operationId, with the tool's name.
 * A tool is its operation: its input schema is the operation's path, query and body schemas
 * (catalog.ts), and calling it runs the operation through the API's pipeline (permission,
 * validation, handler, audit). Adding one is one line here. `description` defaults to the
 * operation's own summary and description (from its route), so it is written here only where
 * the REST wording needs the tool's (it names another tool instead of a URL, say).
 *
 * Left out on purpose: sign-in and dashboard-session operations (a key cannot call them),
 * multipart and raw bodies (file upload, voice audio: not JSON arguments), and signed
 * provider callbacks.
 */
export interface ToolEntry {
  operationId: string
  name: string
  description?: string
}

export const TOOLS: readonly ToolEntry[] = [
  // Agents
  { operationId: 'workflows_list', name: 'list_agents' },
  { operationId: 'workflows_get', name: 'get_agent', description: 'An agent (workflow) with its draft definition and config and its published versions.' },
  { operationId: 'workflows_templates', name: 'list_agent_templates' },
  { operationId: 'workflows_create', name: 'create_agent' },
  { operationId: 'workflows_put_definition', name: 'update_agent_definition' },
  { operationId: 'workflows_put_config', name: 'update_agent_config' },
  { operationId: 'workflows_publish', name: 'publish_agent' },
  { operationId: 'workflows_version', name: 'get_agent_version' },
  { operationId: 'workflows_promote', name: 'promote_agent' },
  { operationId: 'workflows_duplicate', name: 'duplicate_agent' },
  { operationId: 'workflows_archive', name: 'archive_agent' },
  { operationId: 'workflows_unarchive', name: 'unarchive_agent' },
  { operationId: 'workflows_delete', name: 'delete_agent' },
  // Runs and sessions
  { operationId: 'workflows_text_run', name: 'run_agent_text' },
  {
    operationId: 'sessions_start',
    name: 'start_session',
    description:
      'Start a text session with an agent (emits session.started); its opening is in the result. Runs the newest published version unless version or use_draft say otherwise. Continue with send_session_message.',
  },
  { operationId: 'sessions_message', name: 'send_session_message' },
  { operationId: 'sessions_get', name: 'get_session' },
  { operationId: 'sessions_events', name: 'list_session_events' },
  { operationId: 'sessions_list', name: 'list_sessions' },
  // Calls
  {
    operationId: 'calls_create',
    name: 'start_call',
    description:
      'Start a call with a saved agent (workflow_uuid) or a transient one (agent). channel chat: a text call answered at once, its opening in messages; continue with send_call_message. channel web: a browser call, pending until a browser opens ws_url. channel phone: dials to (needs telephony).',
  },
  { operationId: 'calls_web_token', name: 'create_web_call_token' },
  { operationId: 'calls_list', name: 'list_calls' },
  { operationId: 'calls_get', name: 'get_call' },
  { operationId: 'calls_control', name: 'control_call' },
  { operationId: 'calls_message', name: 'send_call_message' },
  // Knowledge base
  { operationId: 'knowledge_base_list_documents', name: 'list_knowledge_documents' },
  { operationId: 'knowledge_base_get_document', name: 'get_knowledge_document' },
  { operationId: 'knowledge_base_create_document', name: 'add_knowledge_document' },
  { operationId: 'knowledge_base_delete_document', name: 'delete_knowledge_document' },
  { operationId: 'knowledge_base_search', name: 'search_knowledge_base' },
  // Webhooks
  { operationId: 'webhooks_list_events', name: 'list_webhook_event_types' },
  { operationId: 'webhooks_list_endpoints', name: 'list_webhook_endpoints' },
  { operationId: 'webhooks_create_endpoint', name: 'create_webhook_endpoint' },
  { operationId: 'webhooks_update_endpoint', name: 'update_webhook_endpoint' },
  { operationId: 'webhooks_delete_endpoint', name: 'delete_webhook_endpoint' },
  { operationId: 'webhooks_list_deliveries', name: 'list_webhook_deliveries' },
  { operationId: 'webhooks_get_delivery', name: 'get_webhook_delivery' },
  { operationId: 'webhooks_redeliver', name: 'redeliver_webhook' },
  // Organization, projects, members (read)
  { operationId: 'auth_me', name: 'whoami' },
  { operationId: 'organization_get', name: 'get_organization' },
  { operationId: 'organizations_list', name: 'list_organizations' },
  { operationId: 'projects_list', name: 'list_projects' },
  { operationId: 'projects_environments', name: 'list_project_environments' },
  { operationId: 'rbac_members_list', name: 'list_members' },
  { operationId: 'rbac_roles_list', name: 'list_roles' },
  { operationId: 'rbac_permissions', name: 'list_permissions' },
  // Billing and entitlements (read)
  { operationId: 'entitlements_get', name: 'get_entitlements' },
  { operationId: 'entitlements_plans', name: 'list_plans' },
  { operationId: 'entitlements_flags', name: 'list_feature_flags' },
  { operationId: 'billing_pricing', name: 'get_pricing' },
  { operationId: 'billing_estimate', name: 'estimate_cost' },
  { operationId: 'billing_usage', name: 'get_usage' },
  { operationId: 'billing_credits', name: 'get_credit_balance' },
  { operationId: 'billing_credit_transactions', name: 'list_credit_transactions' },
  // Tools library (functions agents reference by id)
  { operationId: 'tools_list', name: 'list_tools' },
  { operationId: 'tools_get', name: 'get_tool' },
  { operationId: 'tools_create', name: 'create_tool' },
  { operationId: 'tools_update', name: 'update_tool' },
  { operationId: 'tools_delete', name: 'delete_tool' },
  { operationId: 'tools_list_versions', name: 'list_tool_versions' },
  { operationId: 'tools_test', name: 'test_tool' },
  // Automations (event-triggered integration actions)
  { operationId: 'automations_list', name: 'list_automations' },
  { operationId: 'automations_get', name: 'get_automation' },
  { operationId: 'automations_create', name: 'create_automation' },
  { operationId: 'automations_update', name: 'update_automation' },
  { operationId: 'automations_delete', name: 'delete_automation' },
  { operationId: 'automations_test', name: 'test_automation' },
  { operationId: 'automations_list_runs', name: 'list_automation_runs' },
  { operationId: 'automations_get_run', name: 'get_automation_run' },
  { operationId: 'automations_retry_run', name: 'retry_automation_run' },
  // Test suites
  { operationId: 'test_suites_list', name: 'list_test_suites' },
  { operationId: 'test_suites_get', name: 'get_test_suite' },
  { operationId: 'test_suites_create', name: 'create_test_suite' },
  { operationId: 'test_suites_update', name: 'update_test_suite' },
  { operationId: 'test_suites_delete', name: 'delete_test_suite' },
  { operationId: 'test_suites_start_run', name: 'run_test_suite' },
  { operationId: 'test_suites_list_runs', name: 'list_test_suite_runs' },
  { operationId: 'test_suites_get_run', name: 'get_test_suite_run' },
  // Localization helpers
  { operationId: 'localization_locales', name: 'list_locales' },
  { operationId: 'localization_spell_number', name: 'spell_number' },
  { operationId: 'localization_spell_currency', name: 'spell_currency' },
  { operationId: 'localization_spell_date', name: 'spell_date' },
  { operationId: 'localization_normalize', name: 'normalize_text_for_speech' },
  { operationId: 'localization_format_phone', name: 'format_phone_number' },
  { operationId: 'localization_validate_national_id', name: 'validate_national_id' },
]
