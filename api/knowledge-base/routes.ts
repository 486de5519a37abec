import { z } from 'zod'
import { arrayPage, pagingDescription } from '../http/paging.js'
import { defineRoute } from '../http/route.js'
import {
  DEFAULT_DOCUMENT_PAGE_LIMITS,
  DocumentCreate,
  DocumentDetail,
  DocumentListQuery,
  DocumentPath,
  DocumentResponse,
  SearchHitResponse,
  SearchRequest,
  UploadDocumentBody,
} from './schema.js'
import type { KnowledgeService } from './service.js'

const tag = 'Knowledge base'
const resource = 'knowledge_document'
const BASE = '/api/v1/knowledge-base'

export function knowledgeBaseRoutes(knowledge: KnowledgeService) {
  return [
    defineRoute({
      operationId: 'knowledge_base_list_documents',
      method: 'get',
      path: `${BASE}/documents`,
      auth: 'A',
      permission: 'knowledge_base:read',
      tag,
      summary: 'Documents of the request’s environment, newest first (without their text)',
      description: pagingDescription(DEFAULT_DOCUMENT_PAGE_LIMITS),
      query: DocumentListQuery,
      status: 200,
      response: z.array(DocumentResponse),
      handler: ({ auth, query, req }) => arrayPage(req, knowledge.list(auth, query), query),
    }),
    defineRoute({
      operationId: 'knowledge_base_create_document',
      method: 'post',
      path: `${BASE}/documents`,
      auth: 'A',
      permission: 'knowledge_base:write',
      tag,
      summary: 'Add a document from plain text; it is chunked and indexed at once',
      audit: { action: 'knowledge_document.created', resource },
      body: DocumentCreate,
      status: 201,
      response: DocumentResponse,
      errors: ['file_too_large'],
      handler: ({ auth, body }) => knowledge.create(auth, body),
    }),
    defineRoute({
      operationId: 'knowledge_base_upload_document',
      method: 'post',
      path: `${BASE}/documents/upload`,
      auth: 'A',
      permission: 'knowledge_base:write',
      tag,
      summary: 'Add a document from a .txt, .md, .html, .pdf or .docx file (multipart/form-data)',
      description:
        'The file is refused with 413 file_too_large as soon as it passes OZAN_UPLOAD_LIMIT_BYTES (default 10 MiB), while it streams. ' +
        'Another type → 415 unsupported_file_type. A file that cannot be read as its type (a damaged PDF, say) → 422 with a ' +
        'detail entry of type unreadable_document at ["body", "file"]; one with no text in it (a scanned PDF) → empty_document.',
      audit: { action: 'knowledge_document.uploaded', resource },
      body: UploadDocumentBody,
      bodyEncoding: 'multipart',
      status: 201,
      response: DocumentResponse,
      errors: ['unsupported_file_type', 'bad_request'],
      handler: ({ auth, body }) => knowledge.upload(auth, body.file, body.title),
    }),
    defineRoute({
      operationId: 'knowledge_base_get_document',
      method: 'get',
      path: `${BASE}/documents/{document_id}`,
      auth: 'A',
      permission: 'knowledge_base:read',
      tag,
      summary: 'A document with its indexed text',
      params: DocumentPath,
      status: 200,
      response: DocumentDetail,
      errors: ['not_found'],
      handler: ({ auth, params }) => knowledge.detail(auth, params.document_id),
    }),
    defineRoute({
      operationId: 'knowledge_base_delete_document',
      method: 'delete',
      path: `${BASE}/documents/{document_id}`,
      auth: 'A',
      permission: 'knowledge_base:write',
      tag,
      summary: 'Delete a document and its chunks; search stops finding it at once',
      audit: { action: 'knowledge_document.deleted', resource },
      params: DocumentPath,
      status: 204,
      errors: ['not_found'],
      handler: ({ auth, params }) => knowledge.remove(auth, params.document_id),
    }),
    defineRoute({
      operationId: 'knowledge_base_search',
      method: 'post',
      path: `${BASE}/search`,
      auth: 'A',
      permission: 'knowledge_base:read',
      tag,
      summary: 'The chunks that best match a query (BM25, or hybrid with embeddings), best first',
      description:
        'Case, Turkish dotted/dotless i and diacritics are ignored ("cagri" finds "çağrı"); words of 5+ letters also match longer forms. ' +
        'Query syntax is not interpreted: quotes, operators and punctuation are separators. A query with no letters or digits finds nothing. ' +
        'Ranking is BM25. When embeddings are configured (OZAN_EMBEDDINGS_MODEL), it is hybrid: Reciprocal Rank Fusion (k = 60) of the ' +
        "BM25 list and the chunks nearest the query by embedding, so a chunk sharing no word with the query can be found; each hit's " +
        'ranking says which, and what its score is. Chunks are embedded in the background after a document is added; until then, and ' +
        'whenever the embeddings provider is unavailable, the search is answered by BM25 alone, never with an error.',
      audit: 'none',
      body: SearchRequest,
      status: 200,
      response: z.array(SearchHitResponse),
      handler: ({ auth, body }) => knowledge.search(auth, body),
    }),
  ]
}
