// Types of the Anchorage server's workspace/executeCommand answers: those
// the server declares come from the generated CommandResults
// (commands.gen.ts, `go generate ./lsp/command`); only what it leaves
// untyped (a graph answer's symbols and lists) is declared here. Kept free
// of any `vscode` import so the logic using them can be unit tested with
// plain node.
import type { AnalysisDefinitionAnswer, CommandResults, FeatureSearchResult } from './commands.gen';

/** A search strategy chosen by the router (or forced by the user). */
export type Strategy = 'semantic' | 'structural' | 'keyword' | 'hybrid';

export const STRATEGIES: readonly Strategy[] = ['semantic', 'structural', 'keyword', 'hybrid'];

/** One hit of `anchorage.search`. `file` is relative to the folder root, with '/'. */
export type SearchResult = FeatureSearchResult;

/** The answer of `anchorage.search`. */
export type SearchResponse = CommandResults['anchorage.search'];

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

/**
 * One definition of a graph answer. The server declares its `definition`
 * and `result` untyped (a symbol writes its own JSON, and each operation
 * answers its own list), so they are given their types here.
 */
export interface DefinitionAnswer extends Omit<AnalysisDefinitionAnswer, 'definition' | 'result'> {
  definition: SymbolInfo;
  /** CallSite[] for callers and callees, Relation[] for the blast radius and inheritance. */
  result: CallSite[] | Relation[] | null;
}

/** The answer of the graph commands (`anchorage.callers`, …). */
export interface GraphAnswer extends Omit<CommandResults['anchorage.callers'], 'definitions'> {
  definitions: DefinitionAnswer[];
}

/** One folder of `anchorage.index.status`. */
export type FolderStatus = IndexStatus['folders'][number];

/** The answer of `anchorage.index.status`. */
export type IndexStatus = CommandResults['anchorage.index.status'];

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
