import fs from 'node:fs'
import path from 'node:path'
import { findSourceMap, SourceMap, type SourceMapPayload } from 'node:module'
import { pathToFileURL } from 'node:url'

/**
 * tsx hands V8 compacted JavaScript, so .cpuprofile positions in our .ts files are positions in
 * that output. A profiled child dumps the source maps of the repo files it loaded (tsx turns
 * source maps on); the bench maps profile positions back to the .ts lines with them.
 */
export function dumpSourceMaps(root: string, outFile: string): void {
  const maps: Record<string, SourceMapPayload> = {}
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue
      const full = path.join(dir, e.name)
      if (e.isDirectory()) walk(full)
      else if (/\.[cm]?ts$/.test(e.name)) {
        const map = findSourceMap(full)
        if (map) maps[pathToFileURL(full).href] = map.payload
      }
    }
  }
  walk(root)
  fs.writeFileSync(outFile, JSON.stringify(maps))
}

/** (url, 0-based line, 0-based column) in generated code → 1-based line in the source, if known. */
export type SourceLine = (url: string, line: number, column: number) => number | undefined

export function loadSourceLines(file: string): SourceLine {
  let payloads: Record<string, SourceMapPayload> = {}
  try {
    payloads = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, SourceMapPayload>
  } catch {
    return () => undefined
  }
  const maps = new Map<string, SourceMap>()
  return (url, line, column) => {
    const payload = payloads[url]
    if (!payload) return undefined
    let map = maps.get(url)
    if (!map) maps.set(url, (map = new SourceMap(payload)))
    const entry = map.findEntry(line, column) as { originalLine?: number }
    return entry.originalLine === undefined ? undefined : entry.originalLine + 1
  }
}
