// Memory surfaces: argument building and answer → item mapping for the
// server's anchorage.memory.*, anchorage.context.inject and
// anchorage.slots.* commands. Free of any `vscode` import, so it is unit
// tested with plain node.
import { CommandAliases, Commands } from './commands.gen';
import type * as gen from './commands.gen';
import { isUnknownCommand } from './errors';

export const MEMORY_COMMANDS = {
  record: Commands.memoryRecordCorrection,
  propose: Commands.memoryPropose,
  approve: Commands.memoryApprove,
  approveAll: Commands.memoryApproveAll,
  reject: Commands.memoryReject,
  list: Commands.memoryList,
  /** Every pending proposal of any session (read-only); newer servers only. */
  proposals: Commands.memoryProposals,
  reanchor: Commands.memoryReanchor,
  inject: Commands.contextInject,
} as const;

/** The server's counts of rules, proposals and corrections, and of the memory graph. */
export const STATS_COMMAND = Commands.stats;

/** The pending proposals of an anchorage.stats answer, or undefined when it has none. */
export function pendingFromStats(stats: unknown): number | undefined {
  const n = (stats as { memory?: { proposals?: { pending?: unknown } } | null } | null)?.memory?.proposals?.pending;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 0) {
    return n;
  }
  // No memory yet: the server answers {"memory": null}.
  if (stats && typeof stats === 'object' && (stats as { memory?: unknown }).memory === null) {
    return 0;
  }
  return undefined;
}

export const SLOT_COMMANDS = {
  status: Commands.slotsStatus,
  set: Commands.slotsSet,
  pin: Commands.slotsPin,
  unpin: Commands.slotsUnpin,
} as const;

/**
 * The name an older server knows a command by (the slots commands were
 * anchorage.anchors.* before), or undefined when it has no other.
 */
export function formerName(command: string): string | undefined {
  return Object.keys(CommandAliases).find((old) => CommandAliases[old] === command);
}

/** The server's limit on a correction's text (memory.MaxCorrectionBytes). */
export const MAX_CORRECTION_BYTES = 10 << 10;

/** The server's default injection budget in tokens (memory.DefaultInjectBudget). */
export const DEFAULT_INJECT_BUDGET = 1500;

/** A zero-based position and range, as LSP sends them. */
export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

/**
 * A pending (or decided) proposal: as the proposal commands answer it
 * (ProposalView), or as a diagnostic's data carries it (proposalFromData:
 * the fields marked optional here may then be missing).
 */
export type Proposal = Pick<gen.ProposalView, 'id' | 'status' | 'category' | 'scope' | 'content' | 'frequency' | 'confidence'> &
  Partial<Omit<gen.ProposalView, 'id' | 'status' | 'category' | 'scope' | 'content' | 'frequency' | 'confidence'>>;

export type RuleAnchor = gen.MemoryRuleAnchor;

/** Where a rule's example is now. */
export type RuleLocation = gen.RuleLocation;

export type AnchorStatus = 'anchored' | 'lost' | 'elsewhere' | 'pending' | 'none';

/** A rule of anchorage.memory.list, with its anchor resolved. */
export type RuleView = gen.RuleView;

/** What approving a proposal did (anchorage.memory.approve). */
export type ApprovalView = gen.ApprovalView;

/** The answer of anchorage.memory.recordCorrection. */
export type CorrectionResult = gen.CorrectionResult;

/** The answer of anchorage.context.inject (memory.Injection). */
export type Injection = gen.MemoryInjection;

/** One working-memory slot of anchorage.slots.status. */
export type Slot = gen.RecallSlotStatus;

/** The answer of anchorage.slots.status. */
export type SlotsStatus = gen.RecallStatus;

// ---- proposals ------------------------------------------------------------

/**
 * The pending proposals of an anchorage.memory.propose or
 * anchorage.memory.proposals answer, strongest first.
 */
export function pendingProposals(answer: { proposals?: Proposal[] | null } | undefined | null): Proposal[] {
  const ps = (answer?.proposals ?? []).filter((p) => p && p.status === 'pending');
  return ps.sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0) || a.id - b.id);
}

/**
 * Every pending proposal of any session, strongest first: the answer of
 * anchorage.memory.proposals. From an older server that does not know that
 * command, the pending proposals of the propose answer, then those only the
 * hint diagnostics show (fromDiagnostics). Other errors are thrown.
 */
export async function listPendingProposals(
  execute: (command: string, args: unknown[]) => Promise<unknown>,
  proposed: { proposals?: Proposal[] | null } | undefined | null,
  fromDiagnostics: () => Proposal[],
): Promise<Proposal[]> {
  try {
    return pendingProposals((await execute(MEMORY_COMMANDS.proposals, [])) as { proposals?: Proposal[] | null } | null);
  } catch (err) {
    if (!isUnknownCommand(err)) {
      throw err;
    }
  }
  return mergeProposals(pendingProposals(proposed), fromDiagnostics());
}

/** "3 corrections", "1 correction". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export interface ProposalItem {
  label: string;
  description: string;
  detail: string;
  picked: boolean;
  proposal: Proposal;
}

/**
 * QuickPick items of pending proposals: the rule, its scope and strength,
 * and what approving does to a rule it repeats or contradicts. Proposals
 * that contradict a rule or another pending proposal are not picked by
 * default.
 */
export function proposalItems(proposals: Proposal[]): ProposalItem[] {
  return proposals.map((p) => {
    const where = p.example_symbol ? ` · example ${p.example_symbol}` : p.file ? ` · from ${p.file}` : '';
    const details = [`${p.confidence > 0 ? `confidence ${p.confidence.toFixed(2)}` : 'from another session'}${where}`];
    if (p.conflict) {
      details.push(p.conflict);
    } else if (p.rationale) {
      details.push(p.rationale);
    }
    return {
      label: p.content,
      description: `${p.scope} · ${plural(p.frequency, 'correction')}`,
      detail: details.join(' — '),
      picked: !p.contradicts && !p.contradicts_proposal,
      proposal: p,
    };
  });
}

export interface ScopeChoice {
  label: string;
  description: string;
  /** The scope to send; undefined approves each as proposed. */
  scope: string | undefined;
}

/**
 * The scopes the selected proposals can be approved with, as the server
 * offers them (anchorage.memory.scopeChoices); an older server without
 * that command gets scopeChoices.
 */
export async function serverScopeChoices(
  execute: (command: string, args: unknown[]) => Promise<unknown>,
  selected: Proposal[],
): Promise<ScopeChoice[]> {
  try {
    const res = (await execute(Commands.memoryScopeChoices, [{ ids: selected.map((p) => p.id) }])) as {
      choices?: { label: string; description: string; scope: string }[] | null;
    } | null;
    const choices = res?.choices ?? [];
    if (choices.length > 0) {
      return choices.map((c) => ({ label: c.label, description: c.description, scope: c.scope === '' ? undefined : c.scope }));
    }
  } catch (err) {
    if (!isUnknownCommand(err)) {
      throw err;
    }
  }
  return scopeChoices(selected);
}

/**
 * The scopes the selected proposals can be approved with: as proposed,
 * universal, and the language or project scope when every proposal has one
 * (the server turns "language"/"project" into each proposal's own).
 */
export function scopeChoices(selected: Proposal[]): ScopeChoice[] {
  const scopes = [...new Set(selected.map((p) => p.scope))];
  const out: ScopeChoice[] = [
    {
      label: 'As proposed',
      description: scopes.length === 1 ? scopes[0] : scopes.join(', '),
      scope: undefined,
    },
  ];
  if (!scopes.every((s) => s === 'universal')) {
    out.push({ label: 'Universal', description: 'every project and language', scope: 'universal' });
  }
  const langs = [...new Set(selected.map((p) => p.language).filter((l): l is string => !!l))];
  if (langs.length > 0 && selected.every((p) => p.language) && !scopes.every((s) => s.startsWith('language:'))) {
    out.push({ label: 'Language', description: langs.map((l) => `language:${l}`).join(', '), scope: 'language' });
  }
  const projects = [...new Set(selected.map((p) => p.project).filter((x): x is string => !!x))];
  if (projects.length > 0 && selected.every((p) => p.project) && !scopes.every((s) => s.startsWith('project:'))) {
    out.push({ label: 'Project', description: projects.map((x) => `project:${x}`).join(', '), scope: 'project' });
  }
  return out;
}

/** Arguments of anchorage.memory.approve. */
export function buildApproveArgs(id: number, scope?: string): [{ id: number; scope?: string }] {
  return scope ? [{ id, scope }] : [{ id }];
}

/**
 * A file's path for messages: the server's workspace-relative path when it
 * sends one, else what relative() makes of the URI (in VS Code,
 * workspace.asRelativePath), else the URI's file name.
 */
export type RelativePath = (uri: string) => string;

/** A location's workspace-relative path (see RelativePath). */
export function locationPath(loc: Pick<RuleLocation, 'uri'> & { path?: string }, relative?: RelativePath): string {
  if (loc.path) {
    return loc.path;
  }
  if (relative) {
    return relative(loc.uri);
  }
  return decodeURIComponent(loc.uri.replace(/^file:\/\//, ''));
}

/** "rule 3 (project:app): Wrap errors … — example db.Open (internal/db/db.go:12)". */
export function approvalSummary(v: ApprovalView, relative?: RelativePath): string {
  if (v.summary) {
    return v.summary; // the server's, with its workspace-relative paths
  }
  // An older server: told here the way newer servers tell it.
  const rule = v.rule;
  let s = `${v.merged ? 'merged into' : 'approved as'} rule ${rule.id} (${rule.scope}): ${shorten(rule.content, 80)}`;
  if (v.location && v.anchor_status === 'anchored') {
    s += ` — example ${v.location.symbol || 'file'} (${locationPath(v.location, relative)}:${v.location.line})`;
  } else if (v.anchor_note) {
    s += ` — ${v.anchor_note}`;
  }
  if (v.superseded && v.superseded.length > 0) {
    s += `; replaces rule ${v.superseded.join(', ')}`;
  }
  return s;
}

/**
 * What approving several rules did, in one message: each rule's text and
 * where its example is ("approved 2 rules: “Wrap errors …” (users/repo.go:12);
 * “Log every request …”"). One approval gets approvalSummary.
 */
export function approvalsMessage(views: ApprovalView[], relative?: RelativePath): string {
  if (views.length === 1) {
    return approvalSummary(views[0], relative);
  }
  const merged = views.filter((v) => v.merged).length;
  const head = `approved ${plural(views.length, 'rule')}${merged > 0 ? ` (${merged} merged into existing ones)` : ''}`;
  const each = views.map((v) => {
    const where = v.location && v.anchor_status === 'anchored' ? ` (${locationPath(v.location, relative)}:${v.location.line})` : '';
    return `“${shorten(v.rule.content, 60)}”${where}`;
  });
  return `${head}: ${each.join('; ')}`;
}

/** Cuts text to n characters with an ellipsis, on one line. */
export function shorten(text: string, n: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

/** Whether a diagnostic is a proposal hint of the server; returns its proposal id. */
export function proposalIdOf(d: { source?: string; code?: unknown; data?: unknown }): number | undefined {
  if (d.source !== 'anchorage') {
    return undefined;
  }
  const code = typeof d.code === 'object' && d.code !== null ? (d.code as { value?: unknown }).value : d.code;
  if (code !== 'proposal') {
    return undefined;
  }
  const id = (d.data as { [K in keyof gen.FeatureProposalData]?: unknown } | undefined)?.proposal;
  return typeof id === 'number' && id > 0 ? id : undefined;
}

/**
 * A pending proposal as its diagnostic's data carries it (the server sends
 * its text, scope and strength there, so nothing is read out of the
 * message), for proposals that anchorage.memory.propose did not answer
 * (made by the CLI or by another editor session), from a server that has
 * no anchorage.memory.proposals. Undefined when the data does not hold a
 * proposal.
 */
export function proposalFromData(data: unknown): Proposal | undefined {
  if (!data || typeof data !== 'object') {
    return undefined;
  }
  // The fields are those of the generated shape; their values are checked.
  const d = data as { [K in keyof gen.FeatureProposalData]?: unknown };
  const str = (k: keyof gen.FeatureProposalData) => (typeof d[k] === 'string' && d[k] !== '' ? (d[k] as string) : undefined);
  const id = d.proposal;
  const content = str('content');
  const scope = str('scope');
  if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0 || !content || !scope) {
    return undefined;
  }
  const p: Proposal = {
    id,
    status: 'pending',
    category: str('category') ?? 'rule',
    scope,
    content,
    frequency: typeof d.frequency === 'number' ? d.frequency : 0,
    confidence: 0,
  };
  for (const k of ['language', 'project', 'conflict', 'file'] as const) {
    const v = str(k);
    if (v) {
      p[k] = v;
    }
  }
  return p;
}

/**
 * The proposals to offer: those of the propose answer (full), then those
 * only the diagnostics show, by id, in the order given.
 */
export function mergeProposals(proposed: Proposal[], fromDiagnostics: Proposal[]): Proposal[] {
  const seen = new Set(proposed.map((p) => p.id));
  const out = [...proposed];
  for (const p of fromDiagnostics) {
    if (!seen.has(p.id)) {
      seen.add(p.id);
      out.push(p);
    }
  }
  return out;
}

/**
 * The pending proposals the editor knows of: the server's count
 * (anchorage.stats) when it answers one; from an older server, the ids of
 * its proposal hints across all documents, plus those of the last
 * anchorage.memory.propose answer that no later event decided.
 */
export class PendingProposals {
  private fromDiagnostics = new Set<number>();
  private fromPropose = new Set<number>();
  /** The server's own count (anchorage.stats), when it has one. */
  private counted: number | undefined;

  /** Sets the server's count; undefined falls back to the ids seen. */
  setCounted(n: number | undefined): boolean {
    const changed = n !== this.counted;
    this.counted = n;
    return changed;
  }

  /** Sets the proposal ids seen in every document's diagnostics. */
  setDiagnostics(ids: Iterable<number>): boolean {
    return this.replace('fromDiagnostics', new Set(ids));
  }

  /** Sets the pending proposals of a propose answer. */
  setProposed(ids: Iterable<number>): boolean {
    return this.replace('fromPropose', new Set(ids));
  }

  /** Forgets decided proposals (approved or rejected). */
  decided(ids: Iterable<number>): boolean {
    let changed = false;
    for (const id of ids) {
      changed = this.fromPropose.delete(id) || changed;
      changed = this.fromDiagnostics.delete(id) || changed;
    }
    return changed;
  }

  get count(): number {
    if (this.counted !== undefined) {
      return this.counted;
    }
    return new Set([...this.fromDiagnostics, ...this.fromPropose]).size;
  }

  private replace(key: 'fromDiagnostics' | 'fromPropose', next: Set<number>): boolean {
    const cur = this[key];
    const same = cur.size === next.size && [...next].every((x) => cur.has(x));
    this[key] = next;
    return !same;
  }
}

// ---- corrections ------------------------------------------------------------

/**
 * Arguments of anchorage.memory.recordCorrection, or an error message for
 * text the server would refuse (empty, too long). A range needs its uri.
 */
export function buildCorrectionArgs(
  text: string,
  uri?: string,
  range?: Range,
): { args: [{ text: string; uri?: string; range?: Range }] } | { error: string } {
  const t = text.trim();
  if (t === '') {
    return { error: 'the correction is empty' };
  }
  const bytes = Buffer.byteLength(t, 'utf8');
  if (bytes > MAX_CORRECTION_BYTES) {
    return { error: `the correction is ${bytes} bytes; the limit is ${MAX_CORRECTION_BYTES}` };
  }
  const arg: { text: string; uri?: string; range?: Range } = { text: t };
  if (uri && uri.startsWith('file:')) {
    arg.uri = uri;
    if (range) {
      arg.range = range;
    }
  }
  return { args: [arg] };
}

/**
 * The correction in a selection: its lines without comment markers
 * (//, #, --, ;, block comment delimiters, *) and blank lines, joined by spaces. A selected
 * comment where the user wrote what to do differently becomes its text.
 */
export function correctionFromSelection(selected: string): string {
  const lines = selected
    .replace(/\/\*+|\*+\//g, ' ')
    .split(/\r?\n/)
    .map((l) => l.replace(/^\s*(\/\/+|#+|--+|;+|\*+)\s?/, '').trim())
    .filter((l) => l !== '');
  return lines.join(' ').replace(/\s+/g, ' ').trim();
}

/** "Recorded correction 4; 3 open corrections: run Approve Memory Proposals." */
export function correctionMessage(r: CorrectionResult): string {
  const n = r.open_corrections;
  return `recorded correction ${r.correction.id}${r.correction.file ? ` (${r.correction.file})` : ''}; ${plural(n, 'open correction')}`;
}

// ---- injection ----------------------------------------------------------------

/** Arguments of anchorage.context.inject. */
export function buildInjectArgs(opts: { uri?: string; query?: string; budget?: number }): [Record<string, unknown>] {
  const arg: Record<string, unknown> = {};
  if (opts.uri && opts.uri.startsWith('file:')) {
    arg.uri = opts.uri;
  }
  const q = (opts.query ?? '').trim();
  if (q) {
    arg.query = q;
  }
  const b = opts.budget;
  arg.budget = typeof b === 'number' && Number.isFinite(b) && b > 0 ? Math.floor(b) : DEFAULT_INJECT_BUDGET;
  return [arg];
}

/** "Copied 2 rules (412 of 1500 tokens) for users/repo.go; 1 left out for the budget". */
export function injectionSummary(inj: Injection): string {
  const n = inj.rules?.length ?? 0;
  let s = `copied ${plural(n, 'rule')} (${inj.tokens.total} of ${inj.tokens.budget} tokens)`;
  if (inj.file) {
    s += ` for ${inj.file}`;
  }
  if (inj.dropped > 0) {
    s += `; ${inj.dropped} left out for the budget`;
  }
  return s;
}

// ---- the Memories tree ------------------------------------------------------------

export interface ScopeGroup {
  scope: string;
  label: string;
  rules: RuleView[];
}

/** Orders scopes: universal, then languages, then projects, each by name. */
function scopeRank(scope: string): number {
  if (scope === 'universal') return 0;
  if (scope.startsWith('language:')) return 1;
  if (scope.startsWith('project:')) return 2;
  return 3;
}

/** The active rules grouped by scope (rules keep the server's order: most important first). */
export function groupRulesByScope(rules: RuleView[]): ScopeGroup[] {
  const groups = new Map<string, RuleView[]>();
  for (const r of rules) {
    if (r.superseded_by) {
      continue;
    }
    const list = groups.get(r.scope) ?? [];
    list.push(r);
    groups.set(r.scope, list);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => scopeRank(a) - scopeRank(b) || a.localeCompare(b))
    .map(([scope, rs]) => ({ scope, label: `${scopeLabel(scope)} (${rs.length})`, rules: rs }));
}

/** "Universal", "Language: go", "Project: app". */
export function scopeLabel(scope: string): string {
  if (scope === 'universal') return 'Universal';
  const m = /^(language|project):(.*)$/.exec(scope);
  return m ? `${m[1] === 'language' ? 'Language' : 'Project'}: ${m[2]}` : scope;
}

/** A rule's line in the tree: its text, and where its example is. */
export function ruleTreeItem(r: RuleView): { label: string; description: string; tooltip: string; icon: string; openable: boolean } {
  let description: string;
  let icon: string;
  switch (r.anchor_status) {
    case 'anchored':
      description = r.location ? `${r.location.symbol || r.anchor?.file} · ${fileOf(r)}:${r.location.line}` : r.anchor?.file ?? '';
      icon = 'pinned';
      break;
    case 'lost':
      description = `anchor lost: ${r.anchor?.symbol || r.anchor?.file}`;
      icon = 'warning';
      break;
    case 'pending':
      description = 'example being indexed';
      icon = 'sync';
      break;
    case 'elsewhere':
      description = `example in another workspace (${r.anchor?.file})`;
      icon = 'link-external';
      break;
    default:
      description = 'no example';
      icon = 'circle-outline';
  }
  const lines = [r.content, `${r.scope} · ${r.category} · confidence ${r.confidence.toFixed(2)} · from ${plural(r.corrections, 'correction')}`];
  if (r.rationale) {
    lines.push(`Why: ${r.rationale}`);
  }
  return {
    label: shorten(r.content, 100),
    description,
    tooltip: lines.join('\n'),
    icon,
    openable: r.anchor_status === 'anchored' && !!r.location,
  };
}

function fileOf(r: RuleView): string {
  return r.location?.path ?? r.anchor?.file ?? locationPath({ uri: r.location?.uri ?? '' });
}

// ---- the status bar ------------------------------------------------------------

/** The status text's pending-proposal suffix: " · 3 proposals", or "". */
export function pendingSuffix(n: number): string {
  return n > 0 ? ` · ${plural(n, 'proposal')}` : '';
}

// ---- working memory slots --------------------------------------------------------

export interface SlotItem {
  label: string;
  description: string;
  detail: string;
  slot: Slot;
}

/** QuickPick items of the working-memory slots A, B, C. */
export function slotItems(status: SlotsStatus | undefined | null): SlotItem[] {
  return (status?.slots ?? []).map((s) => {
    const anchor = s.anchor;
    const label = `${s.pinned ? '$(pinned)' : '$(circle-large-outline)'} ${s.slot}: ${anchor ? shorten(anchor.title, 70) : '(empty)'}`;
    const bits: string[] = [];
    if (anchor) {
      bits.push(anchor.id);
    }
    if (s.pinned) {
      bits.push('pinned');
    }
    if (typeof s.hop_budget === 'number') {
      bits.push(`${s.hop_budget} hops`);
    }
    if (s.last_used) {
      bits.push(`used ${s.last_used}`);
    }
    return { label, description: bits.join(' · '), detail: s.summary ? shorten(s.summary, 160) : '', slot: s };
  });
}

export type SlotAction = 'pin' | 'unpin' | 'set';

/** What can be done to a slot: pin a filled unpinned one, unpin a pinned one, set any to another memory. */
export function slotActions(s: Slot): { action: SlotAction; label: string }[] {
  const out: { action: SlotAction; label: string }[] = [];
  if (s.pinned) {
    out.push({ action: 'unpin', label: `$(pinned) Unpin slot ${s.slot}` });
  } else if (s.anchor) {
    out.push({ action: 'pin', label: `$(pin) Pin slot ${s.slot} to ${shorten(s.anchor.title, 50)}` });
  }
  out.push({ action: 'set', label: `$(edit) Put a rule in slot ${s.slot}…` });
  return out;
}

/**
 * The command and arguments of a slot action; id is the memory id for pin
 * and set. former uses the names of servers older than the slots
 * commands (anchorage.anchors.*).
 */
export function buildSlotArgs(action: SlotAction, slot: string, id?: string, former = false): { command: string; args: [Record<string, string>] } {
  const name = (c: string): string => (former ? formerName(c) ?? c : c);
  switch (action) {
    case 'unpin':
      return { command: name(SLOT_COMMANDS.unpin), args: [{ slot }] };
    case 'pin':
      return { command: name(SLOT_COMMANDS.pin), args: [{ slot, id: id ?? '' }] };
    case 'set':
      return { command: name(SLOT_COMMANDS.set), args: [{ slot, id: id ?? '' }] };
  }
}

/** The memory id of a rule ("rule:12"). */
export function ruleMemoryId(id: number): string {
  return `rule:${id}`;
}
