import * as fs from 'node:fs';
import * as path from 'node:path';

import type { FeatureSearchAnswer, FeatureSearchResult, FolderStatus } from '../../src/lib/commands.gen';

/** Reads a JSON fixture from test/unit/fixtures (tests run from out/test/unit). */
export function fixture<T>(name: string): T {
  const dir = path.resolve(__dirname, '..', '..', '..', 'test', 'unit', 'fixtures');
  return JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as T;
}

/**
 * An answer as an older server sent it (a list as null, fields missing
 * that the server now always sends): the client must still cope. Only
 * such tests leave the generated types.
 */
export function olderServer<T>(answer: unknown): T {
  return answer as T;
}

/** A search hit with every field the server sends: those of over, the rest empty. */
export function searchResult(over: Partial<FeatureSearchResult>): FeatureSearchResult {
  return { file: '', line: 1, end_line: 0, symbol: '', kind: '', score: 0, strategy: '', multi_strategy: false, snippet: '', ...over };
}

/** A search answer with every field the server sends: those of over, the rest empty. */
export function searchAnswer(over: Partial<FeatureSearchAnswer>): FeatureSearchAnswer {
  return { query: '', strategy: '', confidence: 0, reasoning: '', elapsed_ms: 0, total: 0, results: [], ...over };
}

/** A folder of anchorage.index.status with every field the server sends: those of over, the rest empty. */
export function folderStatus(over: Partial<FolderStatus>): FolderStatus {
  return {
    root: '', indexing: false, done: 0, total: 0, database: '', files: 0, files_by_language: {}, symbols: 0, edges: 0,
    unresolved_calls: 0, files_with_syntax_errors: 0, ...over,
  };
}
