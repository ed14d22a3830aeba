// Wire types of the Anchorage server's workspace/executeCommand answers.
// Kept free of any `vscode` import so the logic using them can be unit
// tested with plain node.

/** A search strategy chosen by the router (or forced by the user). */
export type Strategy = 'semantic' | 'structural' | 'keyword' | 'hybrid';

export const STRATEGIES: readonly Strategy[] = ['semantic', 'structural', 'keyword', 'hybrid'];

/** One hit of `anchorage.search`. `file` is relative to the folder root, with '/'. */
export interface SearchResult {
  file: string;
  /** 1-based. */
  line: number;
  end_line?: number;
  symbol?: string;
  kind?: string;
  score?: number;
  strategy?: string;
  multi_strategy?: boolean;
  snippet?: string;
  /** Absolute root of the folder the file belongs to, if the server says. */
  root?: string;
  /** Where the symbol's name is: 1-based line and column (UTF-16); newer servers only. */
  name_line?: number;
  name_column?: number;
  /** The first line of the symbol's doc comment; newer servers only. */
  doc?: string;
}

/** The answer of `anchorage.search`. */
export interface SearchResponse {
  query: string;
  strategy: string;
  confidence: number;
  reasoning: string;
  elapsed_ms?: number;
  partial?: boolean;
  /** What else the user should know (a cut query, a missing symbol, indexing progress). */
  notice?: string;
  /** What the backends found before top_k. */
  total?: number;
  feedback_id?: number;
  results: SearchResult[] | null;
}

/** A symbol as the graph commands return it (lines and columns 1-based). */
export interface SymbolInfo {
  kind: string;
  name: string;
  qualified_name: string;
  module?: string;
  path: string;
  language?: string;
  signature?: string;
  doc?: string;
  line: number;
  column?: number;
  end_line?: number;
}

/** A call, for `anchorage.callers` and `anchorage.callees`. */
export interface CallSite {
  caller: SymbolInfo;
  /** Missing when the called name is defined nowhere in the workspace. */
  callee?: SymbolInfo | null;
  name: string;
  qualifier?: string;
  path: string;
  line: number;
  column: number;
  ambiguous?: boolean;
}

/** A symbol reached through the graph, for `anchorage.blastRadius`. */
export interface Relation {
  symbol: SymbolInfo;
  via: string;
  from?: string;
  depth: number;
  name?: string;
  /** 1-based line of the edge in the symbol's file. */
  line: number;
}

export interface DefinitionAnswer {
  definition: SymbolInfo;
  result: unknown;
}

/** The answer of the graph commands. */
export interface GraphAnswer {
  symbol: string;
  operation: string;
  definitions: DefinitionAnswer[] | null;
}

/** One folder of `anchorage.index.status`. */
export interface FolderStatus {
  root: string;
  indexing: boolean;
  done: number;
  total: number;
  database?: string;
  files?: number;
  files_by_language?: Record<string, number>;
  symbols?: number;
  edges?: number;
  unresolved_calls?: number;
  files_with_syntax_errors?: number;
}

export interface IndexStatus {
  folders: FolderStatus[] | null;
}

/** Where to go when an item is accepted: a root-relative file and a 1-based line. */
export interface Target {
  file: string;
  line: number;
  /** 1-based column, when known. */
  column?: number;
  /** 1-based line to put the cursor on when it is not `line` (a symbol's name). */
  nameLine?: number;
  endLine?: number;
  /** Absolute root the file is relative to, when known. */
  root?: string;
}
