import { z } from 'zod'
import { AgentConfig, Definition } from '../../engine/graph-runtime/index.js'
import { arrayPage, pagingDescription } from '../http/paging.js'
import { defineRoute } from '../http/route.js'
import {
  DEFAULT_WORKFLOW_PAGE_LIMITS,
  DefinitionResponse,
  ListQuery,
  PromoteRequest,
  VersionPath,
  WorkflowCreate,
  WorkflowDetail,
  WorkflowPath,
  WorkflowSummary,
  WorkflowTemplate,
} from './schema.js'
import type { WorkflowService } from './service.js'
import { templates } from './templates/index.js'

const tag = 'Workflows (agents)'
const resource = 'workflow'

export function workflowRoutes(workflows: WorkflowService) {
  return [
    defineRoute({
      operationId: 'workflows_create', method: 'post', path: '/api/v1/workflows', auth: 'A', permission: 'agents:write', tag,
      summary: 'Create an agent in the request’s environment (from a template, a graph, or the default graph)',
      audit: { action: 'workflow.created', resource },
      body: WorkflowCreate, status: 201, response: WorkflowDetail, errors: ['unknown_template'],
      handler: ({ auth, body }) => workflows.create(auth, body),
    }),
    defineRoute({
      operationId: 'workflows_list', method: 'get', path: '/api/v1/workflows', auth: 'A', permission: 'agents:read', tag,
      summary: 'Agents of the request’s environment, newest first', description: pagingDescription(DEFAULT_WORKFLOW_PAGE_LIMITS),
      query: ListQuery, status: 200, response: z.array(WorkflowSummary),
      handler: ({ auth, query, req }) => arrayPage(req, workflows.list(auth, query.archived, query), query),
    }),
    defineRoute({
      operationId: 'workflows_templates', method: 'get', path: '/api/v1/workflows/templates', auth: 'A', permission: 'agents:read', tag,
      summary: 'Ready-made starter graphs; create one with template_id', status: 200, response: z.array(WorkflowTemplate),
      handler: () => templates(),
    }),
    defineRoute({
      operationId: 'workflows_get', method: 'get', path: '/api/v1/workflows/{workflow_uuid}', auth: 'A', permission: 'agents:read', tag,
      summary: 'An agent with its draft and its published versions', params: WorkflowPath, status: 200, response: WorkflowDetail, errors: ['not_found'],
      handler: ({ auth, params }) => workflows.detail(auth, params.workflow_uuid),
    }),
    defineRoute({
      operationId: 'workflows_delete', method: 'delete', path: '/api/v1/workflows/{workflow_uuid}', auth: 'A', permission: 'agents:write', tag,
      summary: 'Delete an agent; its past sessions and calls stay readable', audit: { action: 'workflow.deleted', resource },
      params: WorkflowPath, status: 204, errors: ['not_found'],
      handler: ({ auth, params }) => workflows.remove(auth, params.workflow_uuid),
    }),
    defineRoute({
      operationId: 'workflows_promote', method: 'post', path: '/api/v1/workflows/{workflow_uuid}/promote', auth: 'A', permission: 'agents:publish', tag,
      summary: 'Copy the agent (newest published version, else draft) into another environment (emits workflow.promoted)',
      description: 'The copy is published there as version 1. 409 already_in_environment when that environment already holds this agent.',
      audit: { action: 'workflow.promoted', resource },
      params: WorkflowPath, body: PromoteRequest, status: 200, response: WorkflowDetail, errors: ['not_found', 'already_in_environment', 'same_environment', 'unknown_environment'],
      handler: ({ auth, params, body }) => workflows.promote(auth, params.workflow_uuid, body.target_environment),
    }),
    defineRoute({
      operationId: 'workflows_put_definition', method: 'put', path: '/api/v1/workflows/{workflow_uuid}/definition', auth: 'A', permission: 'agents:write', tag,
      summary: 'Replace the draft graph (validated before saving)', audit: { action: 'workflow.definition_updated', resource },
      params: WorkflowPath, body: Definition, status: 200, response: DefinitionResponse, errors: ['not_found'],
      handler: ({ auth, params, body }) => workflows.putDefinition(auth, params.workflow_uuid, body),
    }),
    defineRoute({
      operationId: 'workflows_put_config', method: 'put', path: '/api/v1/workflows/{workflow_uuid}/config', auth: 'A', permission: 'agents:write', tag,
      summary: 'Replace the draft config (omitted fields take defaults)', audit: { action: 'workflow.config_updated', resource },
      params: WorkflowPath, body: AgentConfig, status: 200, response: DefinitionResponse, errors: ['not_found'],
      handler: ({ auth, params, body }) => workflows.putConfig(auth, params.workflow_uuid, body),
    }),
    defineRoute({
      operationId: 'workflows_publish', method: 'post', path: '/api/v1/workflows/{workflow_uuid}/publish', auth: 'A', permission: 'agents:publish', tag,
      summary: 'Snapshot the draft as the next numbered version (emits workflow.published)', audit: { action: 'workflow.published', resource },
      params: WorkflowPath, status: 200, response: DefinitionResponse, errors: ['not_found'],
      handler: ({ auth, params }) => workflows.publish(auth, params.workflow_uuid),
    }),
    defineRoute({
      operationId: 'workflows_version', method: 'get', path: '/api/v1/workflows/{workflow_uuid}/versions/{version}', auth: 'A', permission: 'agents:read', tag,
      summary: 'One published version', params: VersionPath, status: 200, response: DefinitionResponse, errors: ['not_found'],
      handler: ({ auth, params }) => workflows.version(auth, params.workflow_uuid, params.version),
    }),
    defineRoute({
      operationId: 'workflows_duplicate', method: 'post', path: '/api/v1/workflows/{workflow_uuid}/duplicate', auth: 'A', permission: 'agents:write', tag,
      summary: 'A new agent "Copy of …" with this draft', audit: { action: 'workflow.duplicated', resource },
      params: WorkflowPath, status: 201, response: WorkflowDetail, errors: ['not_found'],
      handler: ({ auth, params }) => workflows.duplicate(auth, params.workflow_uuid),
    }),
    defineRoute({
      operationId: 'workflows_archive', method: 'post', path: '/api/v1/workflows/{workflow_uuid}/archive', auth: 'A', permission: 'agents:write', tag,
      summary: 'Archive (hidden from the default listing)', audit: { action: 'workflow.archived', resource },
      params: WorkflowPath, status: 200, response: WorkflowSummary, errors: ['not_found'],
      handler: ({ auth, params }) => workflows.setArchived(auth, params.workflow_uuid, true),
    }),
    defineRoute({
      operationId: 'workflows_unarchive', method: 'post', path: '/api/v1/workflows/{workflow_uuid}/unarchive', auth: 'A', permission: 'agents:write', tag,
      summary: 'Unarchive', audit: { action: 'workflow.unarchived', resource },
      params: WorkflowPath, status: 200, response: WorkflowSummary, errors: ['not_found'],
      handler: ({ auth, params }) => workflows.setArchived(auth, params.workflow_uuid, false),
    }),
  ]
}
