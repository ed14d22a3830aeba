// Memory in VS Code: Approve Memory Proposals, Record Correction, Copy AI
// Context, Show Working Memory Slots, the Memories tree view, and the
// pending-proposal count of the status bar item.
import { Commands } from './lib/commands.gen';
import type { CommandResults, ExampleRuleView } from './lib/commands.gen';
import * as vscode from 'vscode';

import type { Anchorage } from './extension';
import { errorMessage, isUnknownCommand } from './lib/errors';
import {
  approvalsMessage,
  ApprovalView,
  buildApproveArgs,
  buildCorrectionArgs,
  buildInjectArgs,
  buildSlotArgs,
  correctionFromSelection,
  correctionMessage,
  CorrectionResult,
  groupRulesByScope,
  Injection,
  injectionSummary,
  MEMORY_COMMANDS,
  listPendingProposals,
  pendingFromStats,
  pendingProposals,
  PendingProposals,
  plural,
  Proposal,
  proposalFromData,
  proposalIdOf,
  proposalItems,
  RuleLocation,
  ruleMemoryId,
  ruleTreeItem,
  RuleView,
  ScopeGroup,
  ScopeChoice,
  serverScopeChoices,
  shorten,
  Slot,
  slotActions,
  slotItems,
  SLOT_COMMANDS,
  formerName,
  SlotsStatus,
  STATS_COMMAND,
} from './lib/memory';

/** Commands of the server whose success changes rules or proposals. */
const CHANGING = new Set<string>([
  MEMORY_COMMANDS.approve,
  MEMORY_COMMANDS.approveAll,
  MEMORY_COMMANDS.reject,
  MEMORY_COMMANDS.reanchor,
  MEMORY_COMMANDS.propose,
]);

export class Memory implements vscode.Disposable {
  readonly pending = new PendingProposals();
  readonly tree: MemoriesProvider;
  private readonly disposables: vscode.Disposable[] = [];
  private countTimer: ReturnType<typeof setTimeout> | undefined;
  /** False once the server said it has no anchorage.stats. */
  private statsKnown = true;
  /** A "recorded correction" notification is showing (announceCorrection). */
  private correctionShowing = false;
  private correctionsUnseen = 0;
  private statusMessage: vscode.Disposable | undefined;

  constructor(private readonly a: Anchorage) {
    this.tree = new MemoriesProvider(a);
    const view = vscode.window.createTreeView('anchorage.memories', { treeDataProvider: this.tree, showCollapseAll: true });
    this.tree.view = view;
    this.disposables.push(
      view,
      vscode.languages.onDidChangeDiagnostics(() => this.readDiagnostics()),
    );
  }

  register(context: vscode.ExtensionContext): void {
    const reg = (id: string, fn: (...args: unknown[]) => unknown) =>
      context.subscriptions.push(vscode.commands.registerCommand(id, fn));
    reg('anchorage.approveProposals', () => this.approveProposals());
    reg('anchorage.recordCorrection', (text?: unknown) => this.recordCorrection(typeof text === 'string' ? text : undefined));
    reg('anchorage.copyAIContext', () => this.copyContext());
    reg('anchorage.showSlots', () => this.showSlots());
    reg('anchorage.refreshMemories', () => this.tree.refresh());
    reg('anchorage.openRuleExample', (loc: unknown) => openLocation(loc as RuleLocation));
    reg('anchorage.reanchorRule', (node: unknown) => this.reanchor(node as RuleNode));
  }

  /** The pending proposals the server's hints show, across documents (an older server's fallback). */
  private diagnosticProposals(): Proposal[] {
    const out: Proposal[] = [];
    for (const [, diags] of vscode.languages.getDiagnostics()) {
      for (const d of diags) {
        const data = (d as { data?: unknown }).data;
        const id = proposalIdOf({ source: d.source, code: d.code, data });
        const p = id !== undefined ? proposalFromData(data) : undefined;
        if (p) {
          out.push(p);
        }
      }
    }
    return out;
  }

  /** Counts the server's proposal hints across documents. */
  readDiagnostics(): void {
    const ids: number[] = [];
    for (const [, diags] of vscode.languages.getDiagnostics()) {
      for (const d of diags) {
        const id = proposalIdOf({ source: d.source, code: d.code, data: (d as { data?: unknown }).data });
        if (id !== undefined) {
          ids.push(id);
        }
      }
    }
    if (this.pending.setDiagnostics(ids)) {
      this.a.setPending(this.pending.count);
      this.tree.refresh();
      this.refreshCountSoon();
    }
  }

  /** Asks the server how many proposals are pending (debounced). */
  refreshCountSoon(ms = 300): void {
    if (this.countTimer) {
      clearTimeout(this.countTimer);
    }
    this.countTimer = setTimeout(() => {
      this.countTimer = undefined;
      void this.refreshCount();
    }, ms);
  }

  private async refreshCount(): Promise<void> {
    if (!this.statsKnown || !this.a.client || this.a.serverState !== 'running') {
      return;
    }
    try {
      const n = pendingFromStats(await this.a.execute(STATS_COMMAND, []));
      if (this.pending.setCounted(n)) {
        this.a.setPending(this.pending.count);
        this.tree.refresh();
      }
    } catch (err) {
      if (isUnknownCommand(err)) {
        this.statsKnown = false; // an older server: count the hints
      } else {
        this.a.output.warn(`${STATS_COMMAND}: ${errorMessage(err)}`);
      }
    }
  }

  /**
   * Sees the answer of every server command the editor runs, also those
   * of code actions and code lenses (middleware), to keep the count, the
   * tree and the user up to date.
   */
  afterServerCommand(command: string, result: unknown, fromUser: boolean): void {
    if (command === EXAMPLE_RULES && fromUser) {
      void this.showExampleRules(result);
      return;
    }
    if (!CHANGING.has(command) || result === undefined || result === null) {
      return;
    }
    // The corrections' count in the status bar is out of date now.
    this.statusMessage?.dispose();
    this.statusMessage = undefined;
    const r = result as { proposals?: Proposal[]; approvals?: ApprovalView[]; proposal?: Proposal } & Partial<ApprovalView>;
    if (command === MEMORY_COMMANDS.propose) {
      this.pending.setProposed(pendingProposals(r).map((p) => p.id));
    } else if (command === MEMORY_COMMANDS.approve && r.proposal) {
      this.pending.decided([r.proposal.id]);
      if (fromUser) {
        void this.announce([r as ApprovalView]);
      }
    } else if (command === MEMORY_COMMANDS.approveAll && r.approvals) {
      this.pending.decided(r.approvals.map((v) => v.proposal.id));
      if (fromUser) {
        void this.announce(r.approvals);
      }
    } else if (command === MEMORY_COMMANDS.reject && r.proposal) {
      this.pending.decided([r.proposal.id]);
    }
    this.a.setPending(this.pending.count);
    this.tree.refresh();
    this.refreshCountSoon(0);
  }

  /**
   * The rule lens's answer (anchorage.memory.exampleRules): a quick pick of
   * the example's rules (when there are several), then of the chosen
   * rule's actions — open a correction, use another example, find the
   * best example again, delete the rule.
   */
  async showExampleRules(result: unknown): Promise<void> {
    const rules: ExampleRule[] = (result as CommandResults['anchorage.memory.exampleRules'] | null)?.rules ?? [];
    if (rules.length === 0) {
      void vscode.window.showInformationMessage('Anchorage: no rules on this example any more.');
      return;
    }
    let rule = rules[0];
    if (rules.length > 1) {
      const chosen = await vscode.window.showQuickPick(
        rules.map((r) => ({ label: `rule ${r.id}: ${shorten(r.content, 70)}`, detail: r.rationale, rule: r })),
        { title: 'Anchorage: rules of this example' },
      );
      if (!chosen) {
        return;
      }
      rule = chosen.rule;
    }
    const chosen = await vscode.window.showQuickPick(
      (rule.actions ?? []).map((a) => ({ label: a.title, action: a })),
      { title: `Anchorage: rule ${rule.id}: ${shorten(rule.content, 70)}`, placeHolder: rule.rationale || undefined },
    );
    const a = chosen?.action;
    if (!a) {
      return;
    }
    try {
      if (a.kind === 'open' && a.location) {
        const r = a.location.range;
        await vscode.window.showTextDocument(vscode.Uri.parse(a.location.uri), {
          selection: new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character),
        });
      } else if (a.command) {
        await this.run(a.command.command, a.command.arguments ?? []);
        void vscode.window.showInformationMessage(`Anchorage: rule ${rule.id}: ${a.title}: done.`);
      }
    } catch (err) {
      void vscode.window.showErrorMessage(`Anchorage: ${errorMessage(err)}`);
    }
  }

  /** Runs a memory command of the server and lets afterServerCommand see it. */
  private async run<T>(command: string, args: unknown[]): Promise<T> {
    const res = await this.a.execute<T>(command, args);
    this.afterServerCommand(command, res, false);
    return res;
  }

  /** Tells what approvals did, with a button to the example. */
  private async announce(views: ApprovalView[]): Promise<void> {
    if (views.length === 0) {
      return;
    }
    const withExample = views.find((v) => v.location && v.anchor_status === 'anchored');
    const text = `Anchorage: ${approvalsMessage(views, (uri) => vscode.workspace.asRelativePath(vscode.Uri.parse(uri)))}`;
    const open = 'Open Example';
    const choice = await vscode.window.showInformationMessage(text, ...(withExample ? [open] : []));
    if (choice === open && withExample?.location) {
      await openLocation(withExample.location);
    }
  }

  // ---- Approve Memory Proposals ----------------------------------------------

  async approveProposals(): Promise<void> {
    const client = await this.a.requireClient();
    if (!client) {
      return;
    }
    let proposals: Proposal[];
    try {
      // Propose turns the open corrections into proposals and answers
      // every pending one (unchanged ones keep their ids).
      const answer = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'Anchorage: proposing rules' },
        () => this.run<{ proposals: Proposal[] }>(MEMORY_COMMANDS.propose, []),
      );
      // Proposals made elsewhere (the CLI, an earlier session) are not in
      // the answer: list every pending one.
      proposals = await listPendingProposals((c, args) => this.a.execute(c, args), answer, () => this.diagnosticProposals());
    } catch (err) {
      void vscode.window.showErrorMessage(`Anchorage: ${errorMessage(err)}`);
      return;
    }
    if (proposals.length === 0) {
      const record = 'Record Correction';
      const choice = await vscode.window.showInformationMessage(
        'Anchorage: no memory proposals are pending. Record corrections (three alike make a proposal), then approve them here.',
        record,
      );
      if (choice === record) {
        await vscode.commands.executeCommand('anchorage.recordCorrection');
      }
      return;
    }
    const selected = await this.pickProposals(proposals);
    if (!selected || selected.length === 0) {
      return;
    }
    let choices: ScopeChoice[];
    try {
      choices = await serverScopeChoices((command, args) => this.a.execute(command, args), selected);
    } catch (err) {
      void vscode.window.showErrorMessage(`Anchorage: ${errorMessage(err)}`);
      return;
    }
    let scope: string | undefined;
    if (choices.length > 1) {
      const pick = await vscode.window.showQuickPick(
        choices.map((c) => ({ label: c.label, description: c.description, choice: c })),
        { title: `Anchorage: approve ${plural(selected.length, 'rule')} with the scope`, placeHolder: 'Scope of the approved rules' },
      );
      if (!pick) {
        return;
      }
      scope = pick.choice.scope;
    }
    const done: ApprovalView[] = [];
    const failed: string[] = [];
    for (const p of selected) {
      try {
        done.push(await this.run<ApprovalView>(MEMORY_COMMANDS.approve, buildApproveArgs(p.id, scope)));
      } catch (err) {
        failed.push(`proposal ${p.id}: ${errorMessage(err)}`);
      }
    }
    if (failed.length > 0) {
      void vscode.window.showErrorMessage(`Anchorage: approval failed for ${failed.join('; ')}`);
    }
    await this.announce(done);
  }

  /** The multi-select QuickPick of proposals; a button on each rejects it. */
  private pickProposals(proposals: Proposal[]): Promise<Proposal[] | undefined> {
    type Item = vscode.QuickPickItem & { proposal: Proposal };
    const reject: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: 'Reject this proposal' };
    return new Promise((resolve) => {
      const qp = vscode.window.createQuickPick<Item>();
      qp.title = `Anchorage: approve memory proposals (${proposals.length} pending)`;
      qp.placeholder = 'Select the rules to approve, then press Enter';
      qp.canSelectMany = true;
      qp.matchOnDescription = true;
      qp.matchOnDetail = true;
      const items = (ps: Proposal[]): Item[] => proposalItems(ps).map((i) => ({ ...i, buttons: [reject] }));
      qp.items = items(proposals);
      qp.selectedItems = qp.items.filter((i) => i.picked);
      let result: Proposal[] | undefined;
      qp.onDidTriggerItemButton(async (e) => {
        const id = e.item.proposal.id;
        try {
          await this.run(MEMORY_COMMANDS.reject, [{ id }]);
          const keep = qp.selectedItems.map((i) => i.proposal.id);
          proposals = proposals.filter((p) => p.id !== id);
          qp.items = items(proposals);
          qp.selectedItems = qp.items.filter((i) => keep.includes(i.proposal.id));
          qp.title = `Anchorage: approve memory proposals (${proposals.length} pending; rejected ${id})`;
        } catch (err) {
          void vscode.window.showErrorMessage(`Anchorage: rejecting proposal ${id}: ${errorMessage(err)}`);
        }
      });
      qp.onDidAccept(() => {
        result = qp.selectedItems.map((i) => i.proposal);
        qp.hide();
      });
      qp.onDidHide(() => {
        qp.dispose();
        resolve(result);
      });
      qp.show();
    });
  }

  // ---- Record Correction --------------------------------------------------------

  async recordCorrection(given?: string): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const doc = editor?.document;
    const uri = doc && doc.uri.scheme === 'file' ? doc.uri.toString() : undefined;
    const sel = editor && !editor.selection.isEmpty ? editor.selection : undefined;
    let text = given;
    if (text === undefined) {
      const fromSelection = sel && doc ? correctionFromSelection(doc.getText(sel)) : '';
      const where = doc && uri ? ` about ${vscode.workspace.asRelativePath(doc.uri)}${sel ? `:${sel.start.line + 1}–${sel.end.line + 1}` : ''}` : '';
      text = await vscode.window.showInputBox({
        title: `Anchorage: record a correction${where}`,
        prompt: 'What should an assistant do differently? Three corrections alike become a rule proposal.',
        placeHolder: 'e.g. Wrap errors with context using fmt.Errorf and %w',
        value: fromSelection,
        ignoreFocusOut: true,
        validateInput: (v) => {
          const r = buildCorrectionArgs(v);
          return 'error' in r && v !== '' ? r.error : undefined;
        },
      });
      if (text === undefined) {
        return;
      }
    }
    const range = sel ? { start: { line: sel.start.line, character: sel.start.character }, end: { line: sel.end.line, character: sel.end.character } } : undefined;
    const built = buildCorrectionArgs(text, uri, range);
    if ('error' in built) {
      void vscode.window.showWarningMessage(`Anchorage: ${built.error}.`);
      return;
    }
    const client = await this.a.requireClient();
    if (!client) {
      return;
    }
    try {
      let res: CorrectionResult;
      try {
        res = await this.run<CorrectionResult>(MEMORY_COMMANDS.record, built.args);
      } catch (err) {
        // A document outside the workspace folders: keep the text, drop the place.
        if (!built.args[0].uri || !/uri/.test(errorMessage(err))) {
          throw err;
        }
        res = await this.run<CorrectionResult>(MEMORY_COMMANDS.record, [{ text: built.args[0].text }]);
      }
      await this.announceCorrection(res);
    } catch (err) {
      void vscode.window.showErrorMessage(`Anchorage: recording the correction failed: ${errorMessage(err)}`);
    }
  }

  /**
   * Tells that a correction was recorded: one notification at a time.
   * While one is showing, later corrections update the status bar and the
   * count of the next notification instead of stacking more of them.
   */
  private async announceCorrection(res: CorrectionResult): Promise<void> {
    this.correctionsUnseen++;
    const text = `Anchorage: ${correctionMessage(res)}.`;
    if (this.correctionShowing) {
      this.statusMessage?.dispose();
      this.statusMessage = vscode.window.setStatusBarMessage(`$(check) ${text}`, 8000);
      return;
    }
    this.correctionShowing = true;
    const n = this.correctionsUnseen;
    this.correctionsUnseen = 0;
    const approve = 'Propose and Approve';
    let choice: string | undefined;
    try {
      choice = await vscode.window.showInformationMessage(n > 1 ? `${text} (${n} corrections recorded)` : text, approve);
    } finally {
      this.correctionShowing = false;
    }
    if (choice === approve) {
      await this.approveProposals();
    }
  }

  // ---- Copy AI Context -------------------------------------------------------------

  async copyContext(): Promise<void> {
    const client = await this.a.requireClient();
    if (!client) {
      return;
    }
    const editor = vscode.window.activeTextEditor;
    const doc = editor?.document;
    const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
    const args = buildInjectArgs({
      uri: doc?.uri.scheme === 'file' ? doc.uri.toString() : undefined,
      query: selected.length <= 2000 ? selected : '',
      budget: this.a.config().get<number>('inject.budget'),
    });
    let inj: Injection;
    try {
      inj = await this.run<Injection>(MEMORY_COMMANDS.inject, args);
    } catch (err) {
      const msg = isUnknownCommand(err)
        ? 'this Anchorage server cannot inject context (no "anchorage.context.inject" command); update the anchorage binary'
        : errorMessage(err);
      void vscode.window.showErrorMessage(`Anchorage: ${msg}.`);
      return;
    }
    if (!inj || !inj.markdown || (inj.rules?.length ?? 0) === 0) {
      void vscode.window.showInformationMessage('Anchorage: no rules apply here, so nothing was copied. Approve memory proposals to add rules.');
      return;
    }
    await vscode.env.clipboard.writeText(inj.markdown);
    void vscode.window.showInformationMessage(`Anchorage: ${injectionSummary(inj)}.`);
  }

  // ---- Show Working Memory Slots ---------------------------------------------------------

  async showSlots(): Promise<void> {
    const client = await this.a.requireClient();
    if (!client) {
      return;
    }
    let status: SlotsStatus;
    // Servers before the slots commands know them as anchorage.anchors.*.
    let former = false;
    try {
      try {
        status = await this.a.execute<SlotsStatus>(SLOT_COMMANDS.status, []);
      } catch (err) {
        const old = formerName(SLOT_COMMANDS.status);
        if (!isUnknownCommand(err) || !old) {
          throw err;
        }
        status = await this.a.execute<SlotsStatus>(old, []);
        former = true;
      }
    } catch (err) {
      if (isUnknownCommand(err)) {
        void vscode.window.showWarningMessage(
          `Anchorage: this version of the server has no working memory slots (no "${SLOT_COMMANDS.status}" command). Update the anchorage binary.`,
        );
      } else {
        void vscode.window.showErrorMessage(`Anchorage: ${errorMessage(err)}`);
      }
      return;
    }
    const items = slotItems(status);
    if (items.length === 0) {
      void vscode.window.showInformationMessage('Anchorage: the server reports no working memory slots.');
      return;
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'Anchorage: working memory slots', placeHolder: 'Pick a slot to pin, unpin or fill' });
    if (!pick) {
      return;
    }
    const action = await vscode.window.showQuickPick(
      slotActions(pick.slot).map((x) => ({ label: x.label, action: x.action })),
      { title: `Anchorage: slot ${pick.slot.slot}` },
    );
    if (!action) {
      return;
    }
    let id: string | undefined = pick.slot.anchor?.id;
    if (action.action === 'set') {
      id = await this.pickRuleId(`Anchorage: put a rule in slot ${pick.slot.slot}`);
      if (!id) {
        return;
      }
    }
    const { command, args } = buildSlotArgs(action.action, pick.slot.slot, id, former);
    try {
      const next = await this.a.execute<SlotsStatus>(command, args);
      const slot = (next?.slots ?? []).find((s: Slot) => s.slot === pick.slot.slot);
      void vscode.window.showInformationMessage(
        `Anchorage: slot ${pick.slot.slot} ${slot?.pinned ? 'pinned to' : 'holds'} ${slot?.anchor ? shorten(slot.anchor.title, 60) : 'nothing'}.`,
      );
    } catch (err) {
      void vscode.window.showErrorMessage(`Anchorage: ${command}: ${errorMessage(err)}`);
    }
  }

  private async pickRuleId(title: string): Promise<string | undefined> {
    let rules: RuleView[];
    try {
      rules = (await this.a.execute<{ rules: RuleView[] }>(MEMORY_COMMANDS.list, [])).rules ?? [];
    } catch (err) {
      void vscode.window.showErrorMessage(`Anchorage: ${errorMessage(err)}`);
      return undefined;
    }
    if (rules.length === 0) {
      void vscode.window.showInformationMessage('Anchorage: there are no rules yet.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      rules.map((r) => ({ label: shorten(r.content, 90), description: `rule ${r.id} · ${r.scope}`, id: ruleMemoryId(r.id) })),
      { title },
    );
    return pick?.id;
  }

  private async reanchor(node: RuleNode | undefined): Promise<void> {
    if (!node || node.kind !== 'rule') {
      return;
    }
    try {
      const res = await this.run<{ reanchored: boolean; note?: string; rule: RuleView }>(MEMORY_COMMANDS.reanchor, [{ id: node.rule.id }]);
      void vscode.window.showInformationMessage(
        res.reanchored ? `Anchorage: rule ${node.rule.id} re-anchored.` : `Anchorage: rule ${node.rule.id}: ${res.note || 'no new example'}.`,
      );
    } catch (err) {
      void vscode.window.showErrorMessage(`Anchorage: ${errorMessage(err)}`);
    }
  }

  dispose(): void {
    if (this.countTimer) {
      clearTimeout(this.countTimer);
    }
    this.statusMessage?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
    this.tree.dispose();
  }
}

/** The server command of the rule lens. */
const EXAMPLE_RULES = Commands.memoryExampleRules;

/** A rule of an example, as anchorage.memory.exampleRules answers it. */
type ExampleRule = ExampleRuleView;

async function openLocation(loc: RuleLocation | undefined): Promise<void> {
  if (!loc?.uri) {
    return;
  }
  const r = loc.selection_range ?? loc.range;
  const range = new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
  const editor = await vscode.window.showTextDocument(vscode.Uri.parse(loc.uri), { selection: range, preview: true });
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

// ---- the Memories tree ------------------------------------------------------------

type RuleNode =
  | { kind: 'scope'; group: ScopeGroup }
  | { kind: 'rule'; rule: RuleView }
  | { kind: 'message'; text: string; icon: string; command?: vscode.Command };

/** The Memories view: the active rules grouped by scope. */
export class MemoriesProvider implements vscode.TreeDataProvider<RuleNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RuleNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  view: vscode.TreeView<RuleNode> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly a: Anchorage) {}

  /** Asks for the rules again (debounced: events come in bursts). */
  refresh(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.changed.fire(undefined);
    }, 100);
  }

  getTreeItem(n: RuleNode): vscode.TreeItem {
    switch (n.kind) {
      case 'scope': {
        const item = new vscode.TreeItem(n.group.label, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon(n.group.scope === 'universal' ? 'globe' : n.group.scope.startsWith('language:') ? 'symbol-namespace' : 'folder');
        item.contextValue = 'scope';
        item.id = `scope:${n.group.scope}`;
        return item;
      }
      case 'rule': {
        const t = ruleTreeItem(n.rule);
        const item = new vscode.TreeItem(t.label, vscode.TreeItemCollapsibleState.None);
        item.description = t.description;
        // The whole rule, however long: the label may be cut.
        const tip = new vscode.MarkdownString();
        tip.appendText(t.tooltip);
        item.tooltip = tip;
        item.iconPath = new vscode.ThemeIcon(t.icon);
        item.id = `rule:${n.rule.id}`;
        item.contextValue = n.rule.anchor_status === 'lost' || n.rule.anchor_status === 'none' ? 'rule.unanchored' : 'rule';
        if (t.openable) {
          item.command = { command: 'anchorage.openRuleExample', title: 'Open Example', arguments: [n.rule.location] };
        }
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(n.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon(n.icon);
        item.command = n.command;
        return item;
      }
    }
  }

  async getChildren(n?: RuleNode): Promise<RuleNode[]> {
    if (n?.kind === 'scope') {
      return n.group.rules.map((rule) => ({ kind: 'rule', rule }));
    }
    if (n) {
      return [];
    }
    // The view's welcome content (package.json, viewsWelcome) shows when
    // there is nothing to list: which one is chosen by this context key.
    if (!this.a.client || this.a.serverState !== 'running') {
      const st = this.a.serverState;
      this.setState(st === 'missing' || st === 'outdated' || st === 'restarting' ? st : 'stopped');
      if (this.view) {
        this.view.description = undefined; // no count of rules it cannot list
      }
      return [];
    }
    let rules: RuleView[];
    try {
      rules = (await this.a.execute<{ rules: RuleView[] | null }>(MEMORY_COMMANDS.list, [])).rules ?? [];
    } catch (err) {
      this.setState('error');
      return [{ kind: 'message', text: `Cannot list rules: ${errorMessage(err)}`, icon: 'error' }];
    }
    const out: RuleNode[] = [];
    const pending = this.a.pendingCount;
    if (pending > 0) {
      out.push({
        kind: 'message',
        text: `${plural(pending, 'proposal')} waiting for approval`,
        icon: 'lightbulb',
        command: { command: 'anchorage.approveProposals', title: 'Approve Memory Proposals' },
      });
    }
    const groups = groupRulesByScope(rules);
    this.setState(groups.length === 0 && pending === 0 ? 'empty' : 'rules');
    if (this.view) {
      const n = groups.reduce((s, g) => s + g.rules.length, 0);
      this.view.description = n > 0 ? plural(n, 'rule') : undefined;
    }
    return out.concat(groups.map((group) => ({ kind: 'scope', group })));
  }

  private state: string | undefined;

  /** Sets the anchorage.memoriesState context key the welcome content depends on. */
  private setState(state: 'missing' | 'stopped' | 'restarting' | 'outdated' | 'error' | 'empty' | 'rules'): void {
    if (state !== this.state) {
      this.state = state;
      void vscode.commands.executeCommand('setContext', 'anchorage.memoriesState', state);
    }
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.changed.dispose();
  }
}
