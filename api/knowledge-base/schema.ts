import { z } from 'zod'
import { FileField } from '../http/multipart.js'
import { DEFAULT_PAGE_LIMITS, pageQuery } from '../http/paging.js'

/** Longest text a document may hold, typed or extracted (a zip bomb of a DOCX stops here). */
export const MAX_TEXT_CHARS = 10_000_000
const MAX_METADATA_KEYS = 50

const Metadata = z
  .record(z.string().min(1).max(64), z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]))
  .refine((m) => Object.keys(m).length <= MAX_METADATA_KEYS, `At most ${MAX_METADATA_KEYS} keys`)
  .describe('Free-form labels kept with the document (string, number, boolean or null values).')

export const DocumentCreate = z
  .object({
    title: z.string().trim().min(1).max(200),
    text: z.string().trim().min(1).max(MAX_TEXT_CHARS).describe('Plain text; it is chunked and indexed for search.'),
    source: z.string().trim().min(1).max(2000).optional().describe('Where the text comes from (a URL, a file name, …).'),
    metadata: Metadata.default({}),
  })
  .meta({ id: 'DocumentCreate' })

export const UploadDocumentBody = z
  .object({
    file: FileField.describe('A .txt, .md, .html, .pdf or .docx file (UTF-8 for the text kinds), at most OZAN_UPLOAD_LIMIT_BYTES.'),
    title: z.string().trim().min(1).max(200).optional().describe('Defaults to the file name without its extension.'),
  })
  .meta({ id: 'Body_knowledge-base_upload_document' })

export const DocumentResponse = z
  .object({
    id: z.uuid(),
    title: z.string(),
    source: z.string().nullable().describe('The uploaded file name, or the source given at creation.'),
    content_type: z.string().describe('text/plain for typed text; the detected type of an uploaded file.'),
    size_bytes: z.number().int().describe('Size of the uploaded file, or of the typed text in UTF-8.'),
    char_count: z.number().int().describe('Characters of text kept after extraction and whitespace clean-up.'),
    chunk_count: z.number().int(),
    metadata: z.record(z.string(), z.unknown()),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'DocumentResponse' })

export const DocumentDetail = DocumentResponse.extend({
  text: z.string().describe('The text as indexed (extracted from the file for uploads).'),
}).meta({ id: 'DocumentDetail' })

export const SearchRequest = z
  .object({
    query: z.string().trim().min(1).max(1000).describe('Words to look for; any syntax characters are treated as spaces.'),
    top_k: z.number().int().min(1).max(50).default(5),
    document_ids: z.array(z.uuid()).min(1).max(100).optional().describe('Search only these documents (of the request’s environment).'),
  })
  .meta({ id: 'SearchRequest' })

export const SearchHitResponse = z
  .object({
    score: z
      .number()
      .describe(
        'Relevance, higher is better, comparable within one search only. With ranking "bm25": the BM25 score. With ranking "hybrid": ' +
          'the Reciprocal Rank Fusion score Σ 1/(60 + rank) over the BM25 list and the embedding-similarity list (ranks from 1; ' +
          'at most 2/61 ≈ 0.0328, for a chunk first in both).',
      ),
    ranking: z
      .enum(['bm25', 'hybrid'])
      .describe(
        'How this search ranked, and so what score means: "hybrid" when embeddings are configured (OZAN_EMBEDDINGS_MODEL) and both the ' +
          'query and some chunks of the environment have vectors; otherwise "bm25" (embeddings off, not yet computed, or the provider ' +
          'unavailable). The same for every hit of one search.',
      ),
    snippet: z.string().describe('Up to 240 characters of the chunk around the query words; … marks cut text.'),
    document: z.object({ id: z.uuid(), title: z.string() }),
    chunk: z.object({ id: z.uuid(), index: z.number().int().describe('Position in the document, from 0.'), text: z.string() }),
  })
  .meta({ id: 'SearchHitResponse' })

export const DocumentPath = z.object({ document_id: z.uuid() })
export const DEFAULT_DOCUMENT_PAGE_LIMITS = DEFAULT_PAGE_LIMITS
export const DocumentListQuery = z.object({ ...pageQuery(DEFAULT_DOCUMENT_PAGE_LIMITS) })

export type DocumentCreateT = z.output<typeof DocumentCreate>
export type DocumentResponseT = z.output<typeof DocumentResponse>
export type DocumentDetailT = z.output<typeof DocumentDetail>
export type SearchRequestT = z.output<typeof SearchRequest>
export type SearchHitResponseT = z.output<typeof SearchHitResponse>
