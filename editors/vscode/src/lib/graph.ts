// Show Callers / Callees / Blast Radius: argument building and answer →
// QuickPick item mapping.
import { Commands } from './commands.gen';
import { kindIcon, PickItem } from './search';
import { CallSite, DefinitionAnswer, GraphAnswer, Relation, SymbolInfo } from './types';

export type GraphOp = 'callers' | 'callees' | 'blastRadius';

export const GRAPH_COMMANDS: Record<GraphOp, string> = {
  callers: Commands.callers,
  callees: Commands.callees,
  blastRadius: Commands.blastRadius,
};

const titles: Record<GraphOp, string> = {
  callers: 'Callers of',
  callees: 'Callees of',
  blastRadius: 'Blast radius of',
};

const nothing: Record<GraphOp, string> = {
  callers: 'No callers of',
  callees: 'No calls found in',
  blastRadius: 'Nothing depends on',
};

/** The symbol under the cursor, as found by textDocument/prepareCallHierarchy or the word there. */
export interface CursorSymbol {
  /** The name the graph commands look up (a qualified name when known). */
  symbol: string;
  /** Root-relative file and 1-based line of the definition, when known. */
  path?: string;
  line?: number;
}

/**
 * The symbol of a call hierarchy item from the Anchorage server, whose data
 * carries {path, qualified_name, line (0-based)}.
 */
export function cursorSymbolFromItem(item: { name?: string; detail?: string; data?: unknown } | undefined | null): CursorSymbol | undefined {
  if (!item) {
    return undefined;
  }
  const data = (item.data ?? {}) as { path?: unknown; qualified_name?: unknown; line?: unknown };
  const symbol =
    (typeof data.qualified_name === 'string' && data.qualified_name) || item.detail || item.name || '';
  if (!symbol) {
    return undefined;
  }
  const out: CursorSymbol = { symbol };
  if (typeof data.path === 'string' && data.path) {
    out.path = data.path;
  }
  if (typeof data.line === 'number') {
    out.line = data.line + 1;
  }
  return out;
}

/** Arguments of a graph command: [{symbol, depth?}]. */
export function buildGraphArgs(symbol: string, depth?: number): [{ symbol: string; depth?: number }] {
  const arg: { symbol: string; depth?: number } = { symbol: symbol.trim() };
  if (depth !== undefined && Number.isFinite(depth) && depth > 0) {
    arg.depth = Math.floor(depth);
  }
  return [arg];
}

/** A row of a graph QuickPick: a separator naming a definition, or a location. */
export type GraphEntry = { separator: string } | PickItem;

export function isSeparator(e: GraphEntry): e is { separator: string } {
  return (e as { separator?: string }).separator !== undefined;
}

/**
 * The definitions the answer is about: when the cursor's definition is
 * known and among them, only that one; otherwise all.
 */
export function focusDefinitions(defs: DefinitionAnswer[], focus?: CursorSymbol): DefinitionAnswer[] {
  if (!focus?.path || focus.line === undefined) {
    return defs;
  }
  const hit = defs.filter((d) => d.definition.path === focus.path && d.definition.line === focus.line);
  return hit.length > 0 ? hit : defs;
}

function where(s: { path: string; line: number }): string {
  return `${s.path}:${s.line}`;
}

function symbolLabel(s: SymbolInfo): string {
  return `$(${kindIcon(s.kind)}) ${s.qualified_name || s.name}`;
}

function callAsWritten(c: CallSite): string {
  return c.qualifier ? `${c.qualifier}.${c.name}` : c.name;
}

function callerItem(c: CallSite): PickItem {
  return {
    label: symbolLabel(c.caller),
    description: where(c),
    detail: `calls ${callAsWritten(c)}${c.ambiguous ? ' (ambiguous: several definitions fit)' : ''}`,
    target: { file: c.path, line: c.line, column: c.column },
  };
}

function calleeItem(c: CallSite): PickItem {
  if (!c.callee) {
    return {
      label: `$(symbol-misc) ${callAsWritten(c)}`,
      description: `called at ${where(c)}`,
      detail: 'defined outside the workspace',
      target: { file: c.path, line: c.line, column: c.column },
    };
  }
  return {
    label: symbolLabel(c.callee),
    description: where(c.callee),
    detail: `called as ${callAsWritten(c)} at ${where(c)}${c.ambiguous ? ' (ambiguous)' : ''}`,
    target: { file: c.callee.path, line: c.callee.line, column: c.callee.column },
  };
}

function relationItem(r: Relation): PickItem {
  if (!r.symbol?.path) {
    return {
      label: `$(symbol-misc) ${r.name || '(unresolved)'}`,
      description: `depth ${r.depth}`,
      detail: `${r.via}${r.from ? ` from ${r.from}` : ''} · outside the workspace`,
      target: { file: '', line: 0 },
    };
  }
  const line = r.line > 0 ? r.line : r.symbol.line;
  return {
    label: symbolLabel(r.symbol),
    description: `${where({ path: r.symbol.path, line })} · depth ${r.depth}`,
    detail: `${r.via}${r.from ? ` ${r.from}` : ''}`,
    target: { file: r.symbol.path, line, column: r.line > 0 ? undefined : r.symbol.column },
  };
}

/** The items of one definition's result. */
export function resultItems(op: GraphOp, d: DefinitionAnswer): PickItem[] {
  const list = Array.isArray(d.result) ? d.result : [];
  switch (op) {
    case 'callers':
      return (list as CallSite[]).map(callerItem);
    case 'callees':
      return (list as CallSite[]).map(calleeItem);
    case 'blastRadius':
      return (list as Relation[]).map(relationItem).filter((i) => i.target.file !== '');
  }
}

/**
 * The rows of a graph QuickPick. With several definitions each gets a
 * separator naming it; definitions without results are left out.
 */
export function answerToEntries(op: GraphOp, answer: GraphAnswer, focus?: CursorSymbol): GraphEntry[] {
  const defs = focusDefinitions(answer.definitions ?? [], focus);
  const out: GraphEntry[] = [];
  for (const d of defs) {
    const items = resultItems(op, d);
    if (items.length === 0) {
      continue;
    }
    if (defs.length > 1) {
      out.push({ separator: `${d.definition.qualified_name} — ${where(d.definition)}` });
    }
    out.push(...items);
  }
  return out;
}

/** The QuickPick title of a graph answer. */
export function graphTitle(op: GraphOp, symbol: string, count: number): string {
  return `${titles[op]} ${symbol} (${count})`;
}

/** The message shown when the answer is empty. */
export function emptyMessage(op: GraphOp, symbol: string): string {
  return `${nothing[op]} ${symbol}.`;
}
