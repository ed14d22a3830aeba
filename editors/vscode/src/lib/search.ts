// Search Codebase: argument building and result → QuickPick item mapping.
import { Commands } from './commands.gen';
import { STRATEGIES, SearchResponse, SearchResult, Strategy, Target } from './types';

export const SEARCH_COMMAND = Commands.search;
export const SEARCH_USED_COMMAND = Commands.searchUsed;

export interface SearchOptions {
  /** Number of results wanted; 0 or less leaves it to the server. */
  topK?: number;
  /** A forced strategy; "auto" (or anything else) lets the router choose. */
  strategy?: string;
}

/** Arguments of `anchorage.search`, or undefined for a blank query. */
export function buildSearchArgs(query: string, opts: SearchOptions = {}): [Record<string, unknown>] | undefined {
  const q = query.trim();
  if (q === '') {
    return undefined;
  }
  const arg: Record<string, unknown> = { query: q };
  if (opts.topK !== undefined && Number.isFinite(opts.topK) && opts.topK > 0) {
    arg.top_k = Math.floor(opts.topK);
  }
  if (opts.strategy && (STRATEGIES as readonly string[]).includes(opts.strategy)) {
    arg.strategy = opts.strategy as Strategy;
  }
  return [arg];
}

/** Arguments of `anchorage.search.used` after the user opened a result. */
export function buildUsedArgs(feedbackId: number, result: Pick<SearchResult, 'file' | 'line'>): [{ id: number; file: string; line: number }] {
  return [{ id: feedbackId, file: result.file, line: result.line }];
}

const strategyIcons: Record<string, string> = {
  semantic: 'sparkle',
  structural: 'type-hierarchy',
  keyword: 'whole-word',
  hybrid: 'layers',
};

/** The codicon of a strategy. */
export function strategyIcon(strategy: string | undefined): string {
  return strategyIcons[strategy ?? ''] ?? 'search';
}

/** The text badge of a strategy, e.g. "[semantic]". */
export function strategyBadge(strategy: string | undefined): string {
  return `[${strategy || 'search'}]`;
}

const kindIcons: Record<string, string> = {
  module: 'symbol-namespace',
  class: 'symbol-class',
  struct: 'symbol-struct',
  interface: 'symbol-interface',
  trait: 'symbol-interface',
  enum: 'symbol-enum',
  type: 'symbol-class',
  function: 'symbol-function',
  method: 'symbol-method',
  field: 'symbol-field',
  variable: 'symbol-variable',
  constant: 'symbol-constant',
};

/** The codicon of a symbol kind; a file icon for hits that are not symbols. */
export function kindIcon(kind: string | undefined): string {
  return kindIcons[kind ?? ''] ?? 'file-code';
}

/** A QuickPick item, without `vscode` types. */
export interface PickItem {
  label: string;
  description?: string;
  detail?: string;
  alwaysShow?: boolean;
  target: Target;
}

const maxSnippet = 160;

/** The first meaningful line of a snippet, collapsed and cut to fit a row. */
export function snippetLine(snippet: string | undefined): string | undefined {
  if (!snippet) {
    return undefined;
  }
  // The first line with words: not blank, not bare comment punctuation ("/**", "*", '"""').
  const line = snippet
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== '' && !/^(\/\*+|\*+\/?|\/\/+|#+|"""|'''|<!--|-->)$/.test(l));
  if (!line) {
    return undefined;
  }
  const text = line.replace(/\s+/g, ' ');
  return text.length > maxSnippet ? text.slice(0, maxSnippet - 1) + '…' : text;
}

/** The last path element of a '/'-separated path. */
function baseName(file: string): string {
  const i = file.lastIndexOf('/');
  return i >= 0 ? file.slice(i + 1) : file;
}

/**
 * The QuickPick item of one search result: symbol (or file name) with its
 * kind icon and ★ for hits several strategies found; the location as
 * description (with the backend that found it when the search was hybrid:
 * otherwise the title says the strategy once); the doc comment's first
 * line as detail, else the snippet's first line. Accepting it puts the
 * cursor on the symbol's name. alwaysShow keeps VS Code from filtering
 * the server's results against the typed query.
 */
export function searchResultToItem(r: SearchResult, strategy?: string): PickItem {
  const star = r.multi_strategy ? '★ ' : '';
  const name = r.symbol || baseName(r.file);
  const end = r.end_line && r.end_line > r.line ? `-${r.end_line}` : '';
  const via = strategy === 'hybrid' && r.strategy && r.strategy !== strategy ? ` · ${r.strategy}` : '';
  const doc = r.doc ? r.doc.replace(/\s+/g, ' ').trim() : '';
  const target: Target = { file: r.file, line: r.line, endLine: r.end_line, root: r.root };
  if (typeof r.name_line === 'number' && r.name_line > 0) {
    target.nameLine = r.name_line;
  }
  if (typeof r.name_column === 'number' && r.name_column > 0) {
    target.column = r.name_column;
  }
  return {
    label: `${star}$(${kindIcon(r.symbol ? r.kind : undefined)}) ${name}`,
    description: `${r.file}:${r.line}${end}${via}`,
    detail: doc ? (doc.length > maxSnippet ? doc.slice(0, maxSnippet - 1) + '…' : doc) : snippetLine(r.snippet),
    alwaysShow: true,
    target,
  };
}

/** Items of a whole response, in the server's order. */
export function searchResponseToItems(resp: SearchResponse): PickItem[] {
  return (resp.results ?? [])
    .filter((r) => r && typeof r.file === 'string' && r.file !== '')
    .map((r) => searchResultToItem(r, resp.strategy));
}

/**
 * The QuickPick title, on one line: the strategy the router chose (once
 * for every row), its confidence, the count and the time, and what else
 * the user should know. The router's reasoning is the title's tooltip in
 * spirit: too long for the title, it goes to the output channel.
 */
export function searchTitle(resp: SearchResponse): string {
  const conf = typeof resp.confidence === 'number' && Number.isFinite(resp.confidence) ? ` ${Math.round(resp.confidence * 100)}%` : '';
  const parts = [`Anchorage: ${resp.strategy || 'search'}${conf}`];
  const n = resp.results?.length ?? 0;
  const total = typeof resp.total === 'number' && resp.total > n ? ` of ${resp.total}` : '';
  parts.push(`${n}${total} result${n === 1 && !total ? '' : 's'}`);
  if (typeof resp.elapsed_ms === 'number') {
    parts.push(`${Math.round(resp.elapsed_ms)} ms`);
  }
  if (resp.partial) {
    parts.push('partial');
  }
  if (resp.notice) {
    parts.push(resp.notice);
  }
  return parts.join(' · ');
}
