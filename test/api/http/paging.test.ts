import t from 'tap'
import { DEFAULT_API_KEY_PAGE_LIMITS } from '../../../api/api-keys/schema.js'
import { DEFAULT_AUDIT_PAGE_LIMITS } from '../../../api/audit/routes.js'
import { arrayPage, DEFAULT_EVENT_PAGE_LIMITS, MAX_PAGE_OFFSET, type PageLimits } from '../../../api/http/paging.js'
import type { RequestInfo } from '../../../api/http/route.js'
import { DEFAULT_DOCUMENT_PAGE_LIMITS } from '../../../api/knowledge-base/schema.js'
import { DEFAULT_ORGANIZATION_PAGE_LIMITS } from '../../../api/organizations/schema.js'
import { DEFAULT_PROJECT_PAGE_LIMITS } from '../../../api/projects/schema.js'
import { DEFAULT_RBAC_PAGE_LIMITS } from '../../../api/rbac/schema.js'
import { DEFAULT_SESSION_PAGE_LIMITS } from '../../../api/sessions/schema.js'
import { DEFAULT_WORKFLOW_PAGE_LIMITS } from '../../../api/workflows/schema.js'
import { startTestApp } from '../../helpers/app.js'

/** A RequestInfo that records the headers a handler sets. */
function request(url: string): RequestInfo & { headers: Record<string, string> } {
  const headers: Record<string, string> = {}
  return { requestId: 'r', lang: 'en', ip: '127.0.0.1', host: 'localhost', userAgent: '', url, headers, setHeader: (n, v) => void (headers[n] = v) }
}

t.test('arrayPage returns the rows and describes the page in headers', async (t) => {
  await t.test('a middle page links both ways and keeps the other query parameters', async (t) => {
    const req = request('/api/v1/workflows?archived=true&limit=2&offset=4&q=caf%C3%A9')
    const body = arrayPage(req, { items: ['e', 'f'], total: 9 }, { limit: 2, offset: 4 })
    t.same(body, ['e', 'f'])
    t.equal(req.headers['X-Total-Count'], '9')
    t.equal(
      req.headers.Link,
      '</api/v1/workflows?archived=true&limit=2&offset=6&q=caf%C3%A9>; rel="next", </api/v1/workflows?archived=true&limit=2&offset=2&q=caf%C3%A9>; rel="prev"',
    )
  })
  await t.test('the last page has no next link; a lone page has no Link at all', async (t) => {
    const last = request('/api/v1/projects?offset=8')
    arrayPage(last, { items: ['i'], total: 9 }, { limit: 50, offset: 8 })
    t.equal(last.headers.Link, '</api/v1/projects?offset=0&limit=50>; rel="prev"')
    const lone = request('/api/v1/projects')
    arrayPage(lone, { items: ['a'], total: 1 }, { limit: 50, offset: 0 })
    t.equal(lone.headers.Link, undefined)
    t.equal(lone.headers['X-Total-Count'], '1')
  })
  await t.test('the previous page of an offset that is not a multiple of the limit starts at 0, not below', async (t) => {
    const req = request('/api/v1/api-keys?limit=10&offset=3')
    arrayPage(req, { items: ['d'], total: 4 }, { limit: 10, offset: 3 })
    t.equal(req.headers.Link, '</api/v1/api-keys?limit=10&offset=0>; rel="prev"')
  })
})

t.test('every paged list shows its limit default and maximum, and the offset bound, in the OpenAPI document', async (t) => {
  const a = await startTestApp()
  t.teardown(() => a.close())
  const doc = (await a.request('GET', '/api/v1/openapi.json')).body
  const lists: [string, PageLimits][] = [
    ['/api/v1/workflows', DEFAULT_WORKFLOW_PAGE_LIMITS],
    ['/api/v1/knowledge-base/documents', DEFAULT_DOCUMENT_PAGE_LIMITS],
    ['/api/v1/sessions', DEFAULT_SESSION_PAGE_LIMITS],
    ['/api/v1/workflows/{workflow_uuid}/sessions/{session_uuid}/events', DEFAULT_EVENT_PAGE_LIMITS],
    ['/api/v1/audit', DEFAULT_AUDIT_PAGE_LIMITS],
    ['/api/v1/api-keys', DEFAULT_API_KEY_PAGE_LIMITS],
    ['/api/v1/rbac/roles', DEFAULT_RBAC_PAGE_LIMITS],
    ['/api/v1/rbac/members', DEFAULT_RBAC_PAGE_LIMITS],
    ['/api/v1/rbac/invitations', DEFAULT_RBAC_PAGE_LIMITS],
    ['/api/v1/projects', DEFAULT_PROJECT_PAGE_LIMITS],
    ['/api/v1/organizations', DEFAULT_ORGANIZATION_PAGE_LIMITS],
  ]
  for (const [path, limits] of lists) {
    const params = doc.paths[path].get.parameters as { name: string; in: string; schema: { default?: number; maximum?: number; minimum?: number } }[]
    const limit = params.find((p) => p.in === 'query' && p.name === 'limit')
    const offset = params.find((p) => p.in === 'query' && p.name === 'offset')
    t.match(limit?.schema, { default: limits.defaultLimit, maximum: limits.maxLimit, minimum: 1 }, `${path} limit`)
    t.match(offset?.schema, { default: 0, maximum: MAX_PAGE_OFFSET, minimum: 0 }, `${path} offset`)
    t.equal(doc.paths[path].get.responses['200'].content['application/json'].schema.type, 'array', `${path} still answers a plain array`)
  }
})
