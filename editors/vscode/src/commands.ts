// The palette commands: Search Codebase, Show Callers / Callees / Blast
// Radius, Re-index Workspace, and a few for the server itself.
import { Commands } from './lib/commands.gen';
import * as vscode from 'vscode';
import { CallHierarchyPrepareRequest } from 'vscode-languageclient/node';

import type { Anchorage } from './extension';
import { errorMessage, isCancellation, isUnknownCommand } from './lib/errors';
import { LatestRequest } from './lib/debounce';
import {
  answerToEntries,
  buildGraphArgs,
  cursorSymbolFromItem,
  CursorSymbol,
  emptyMessage,
  GRAPH_COMMANDS,
  GraphOp,
  graphTitle,
  isSeparator,
} from './lib/graph';
import { candidateRoots, folderOf, resolveFile } from './lib/paths';
import {
  buildSearchArgs,
  buildUsedArgs,
  PickItem,
  SEARCH_COMMAND,
  SEARCH_USED_COMMAND,
  searchResponseToItems,
  searchTitle,
} from './lib/search';
import { INSTALL_URL } from './lib/server';
import { statusTooltip, ProgressTracker } from './lib/status';
import { SearchResponse, Target } from './lib/types';

export const REINDEX_COMMAND = Commands.reindex;

interface TargetItem extends vscode.QuickPickItem {
  target?: Target;
}

export function registerCommands(context: vscode.ExtensionContext, a: Anchorage): void {
  const reg = (id: string, fn: (...args: unknown[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  reg('anchorage.searchCodebase', () => searchCodebase(a));
  reg('anchorage.showCallers', () => showGraph(a, 'callers'));
  reg('anchorage.showCallees', () => showGraph(a, 'callees'));
  reg('anchorage.showBlastRadius', () => showGraph(a, 'blastRadius'));
  reg('anchorage.reindexWorkspace', () => reindex(a));
  reg('anchorage.showIndexStatus', () => showIndexStatus(a));
  reg('anchorage.restartServer', () => a.restart());
  reg('anchorage.showOutput', () => a.output.show());
  reg('anchorage.statusMenu', () => statusMenu(a));
}

// ---- locations ----------------------------------------------------------

function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

async function exists(abs: string): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(vscode.Uri.file(abs));
    return true;
  } catch {
    return false;
  }
}

/** The root of the active editor's workspace folder, tried first for ambiguous paths. */
function activeRoot(): string[] {
  const doc = vscode.window.activeTextEditor?.document;
  if (!doc || doc.uri.scheme !== 'file') {
    return [];
  }
  const f = folderOf(doc.uri.fsPath, workspaceRoots());
  return f ? [f] : [];
}

async function targetUri(t: Target, preferred: string[]): Promise<vscode.Uri | undefined> {
  const roots = candidateRoots(workspaceRoots(), preferred, t.root);
  const abs = await resolveFile(t.file, roots, exists);
  return abs ? vscode.Uri.file(abs) : undefined;
}

function targetPosition(t: Target): vscode.Position {
  return new vscode.Position(Math.max(0, (t.nameLine ?? t.line) - 1), Math.max(0, (t.column ?? 1) - 1));
}

async function openTarget(t: Target, preferred: string[]): Promise<boolean> {
  const uri = await targetUri(t, preferred);
  if (!uri) {
    void vscode.window.showErrorMessage(`Anchorage: cannot open ${t.file}: it is not inside a workspace folder.`);
    return false;
  }
  const pos = targetPosition(t);
  try {
    const editor = await vscode.window.showTextDocument(uri, { selection: new vscode.Range(pos, pos), preview: true });
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return true;
  } catch (err) {
    void vscode.window.showErrorMessage(`Anchorage: cannot open ${uri.fsPath}: ${errorMessage(err)}`);
    return false;
  }
}

function toQuickPickItem(i: PickItem): TargetItem {
  return { label: i.label, description: i.description, detail: i.detail, alwaysShow: i.alwaysShow, target: i.target };
}

// ---- Search Codebase ----------------------------------------------------

const searchPlaceholder = 'Search the codebase: a symbol, a question ("where are users saved?"), a string…';

async function searchCodebase(a: Anchorage): Promise<void> {
  const client = await a.requireClient();
  if (!client) {
    return;
  }
  const cfg = a.config();
  const opts = { topK: cfg.get<number>('search.topK'), strategy: cfg.get<string>('search.strategy') };
  const delayMs = Math.max(0, cfg.get<number>('search.debounceMs') ?? 150);
  const preferred = activeRoot();

  const qp = vscode.window.createQuickPick<TargetItem>();
  qp.title = 'Anchorage: Search Codebase';
  qp.placeholder = searchPlaceholder;
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;
  let feedbackId: number | undefined;

  const showMessage = (label: string, detail?: string) => {
    qp.items = [{ label, detail, alwaysShow: true }];
  };

  const latest = new LatestRequest<string, SearchResponse | undefined>({
    delayMs,
    run: async (query, cancel) => {
      const args = buildSearchArgs(query, opts);
      if (!args) {
        return undefined;
      }
      const cts = new vscode.CancellationTokenSource();
      cancel.onCancel(() => cts.cancel());
      try {
        return await a.execute<SearchResponse>(SEARCH_COMMAND, args, cts.token);
      } finally {
        cts.dispose();
      }
    },
    onResult: (resp) => {
      if (!resp) {
        return;
      }
      feedbackId = typeof resp.feedback_id === 'number' ? resp.feedback_id : undefined;
      qp.title = searchTitle(resp);
      if (resp.reasoning) {
        a.output.debug(`search ${JSON.stringify(resp.query)}: ${resp.strategy} — ${resp.reasoning}`);
      }
      const items = searchResponseToItems(resp).map(toQuickPickItem);
      if (items.length === 0) {
        showMessage('$(info) No results', resp.reasoning);
      } else {
        qp.items = items;
      }
    },
    onError: (err, query) => {
      if (isCancellation(err)) {
        return;
      }
      feedbackId = undefined;
      qp.title = 'Anchorage: Search Codebase';
      if (isUnknownCommand(err)) {
        showMessage(
          '$(warning) This Anchorage server cannot search (no "anchorage.search" command)',
          'Update the anchorage binary to a version with routed search.',
        );
      } else {
        showMessage(`$(error) Search failed for "${query}"`, errorMessage(err));
      }
      a.output.warn(`${SEARCH_COMMAND} ${JSON.stringify(query)}: ${errorMessage(err)}`);
    },
    onBusy: (busy) => {
      qp.busy = busy;
    },
  });

  qp.onDidChangeValue((value) => {
    if (value.trim() === '') {
      latest.cancelPending();
      qp.busy = false;
      qp.items = [];
      qp.title = 'Anchorage: Search Codebase';
      return;
    }
    latest.schedule(value);
  });
  qp.onDidAccept(async () => {
    const item = qp.selectedItems[0] ?? qp.activeItems[0];
    if (!item?.target) {
      return;
    }
    const id = feedbackId;
    qp.hide();
    const opened = await openTarget(item.target, preferred);
    if (opened && id !== undefined) {
      a.execute(SEARCH_USED_COMMAND, buildUsedArgs(id, item.target)).catch((err) => {
        a.output.warn(`${SEARCH_USED_COMMAND}: ${errorMessage(err)}`);
      });
    }
  });
  qp.onDidHide(() => {
    latest.dispose();
    qp.dispose();
  });

  // Start from the selection, when there is a short one.
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection).trim() : '';
  qp.show();
  if (selected && selected.length <= 200 && !selected.includes('\n')) {
    qp.value = selected;
    latest.now(selected);
  }
}

// ---- Show Callers / Callees / Blast Radius --------------------------------

/** The symbol under the cursor: the server's call hierarchy item, else the word there. */
async function cursorSymbol(a: Anchorage, editor: vscode.TextEditor): Promise<CursorSymbol | undefined> {
  const client = a.client;
  const doc = editor.document;
  const pos = editor.selection.active;
  if (client) {
    try {
      const items = await client.sendRequest(
        CallHierarchyPrepareRequest.type,
        client.code2ProtocolConverter.asTextDocumentPositionParams(doc, pos),
      );
      const sym = cursorSymbolFromItem(items?.[0]);
      if (sym) {
        return sym;
      }
    } catch (err) {
      a.output.debug(`prepareCallHierarchy: ${errorMessage(err)}`);
    }
  }
  const range = doc.getWordRangeAtPosition(pos);
  return range ? { symbol: doc.getText(range) } : undefined;
}

async function showGraph(a: Anchorage, op: GraphOp): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage('Anchorage: open a file and put the cursor on a function, method or type.');
    return;
  }
  // A file outside every workspace folder (one of the Go toolchain, a
  // dependency) is not in the graph: the word under the cursor would name
  // another symbol of the workspace.
  if (editor.document.uri.scheme === 'file' && !folderOf(editor.document.uri.fsPath, workspaceRoots())) {
    const base = editor.document.uri.path.split('/').pop();
    // Short: a toast shows one line. (The graph knows the workspace
    // folders' files only: it has no callers for this one.)
    void vscode.window.showInformationMessage(`Anchorage: ${base} is outside the workspace.`);
    return;
  }
  const client = await a.requireClient();
  if (!client) {
    return;
  }
  const sym = await cursorSymbol(a, editor);
  if (!sym) {
    void vscode.window.showInformationMessage('Anchorage: there is no symbol under the cursor.');
    return;
  }
  const depth = op === 'blastRadius' ? a.config().get<number>('graph.blastRadiusDepth') : undefined;
  let answer;
  try {
    answer = await a.execute<Parameters<typeof answerToEntries>[1]>(GRAPH_COMMANDS[op], buildGraphArgs(sym.symbol, depth));
  } catch (err) {
    void vscode.window.showErrorMessage(`Anchorage: ${errorMessage(err)}`);
    return;
  }
  const entries = answerToEntries(op, answer, sym);
  if (entries.length === 0) {
    void vscode.window.showInformationMessage(`Anchorage: ${emptyMessage(op, sym.symbol)}`);
    return;
  }
  const own = editor.document.uri.scheme === 'file' ? folderOf(editor.document.uri.fsPath, workspaceRoots()) : undefined;
  const preferred = own ? [own] : [];
  const items: TargetItem[] = entries.map((e) =>
    isSeparator(e) ? { label: e.separator, kind: vscode.QuickPickItemKind.Separator } : toQuickPickItem(e),
  );
  const count = entries.filter((e) => !isSeparator(e)).length;

  const qp = vscode.window.createQuickPick<TargetItem>();
  qp.title = graphTitle(op, sym.symbol, count);
  qp.placeholder = 'Pick a location to open; the button on the right shows them all in a peek view';
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.items = items;
  const peek: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('references'), tooltip: 'Show All in Peek View' };
  qp.buttons = [peek];
  qp.onDidTriggerButton(async (b) => {
    if (b !== peek) {
      return;
    }
    qp.hide();
    const locations: vscode.Location[] = [];
    for (const it of items) {
      if (!it.target) {
        continue;
      }
      const uri = await targetUri(it.target, preferred);
      if (uri) {
        const p = targetPosition(it.target);
        locations.push(new vscode.Location(uri, new vscode.Range(p, p)));
      }
    }
    await vscode.commands.executeCommand('editor.action.showReferences', editor.document.uri, editor.selection.active, locations);
  });
  qp.onDidAccept(async () => {
    const item = qp.selectedItems[0] ?? qp.activeItems[0];
    if (!item?.target) {
      return;
    }
    qp.hide();
    await openTarget(item.target, preferred);
  });
  qp.onDidHide(() => qp.dispose());
  qp.show();
}

// ---- Re-index, status ----------------------------------------------------

async function reindex(a: Anchorage): Promise<void> {
  const client = await a.requireClient();
  if (!client) {
    return;
  }
  try {
    // The server re-indexes in the background and reports it with
    // $/progress, which the status bar item and a notification show.
    await a.execute(REINDEX_COMMAND, []);
    a.output.info('re-index requested');
  } catch (err) {
    if (isUnknownCommand(err)) {
      const restart = 'Restart Server';
      const choice = await vscode.window.showWarningMessage(
        'Anchorage: this version of the server cannot re-index on request (it has no "anchorage.reindex" command). ' +
          'Update the anchorage binary, or restart the server: it brings the index up to date when it starts.',
        restart,
      );
      if (choice === restart) {
        await a.restart();
      }
      return;
    }
    void vscode.window.showErrorMessage(`Anchorage: re-indexing failed: ${errorMessage(err)}`);
  }
}

async function showIndexStatus(a: Anchorage): Promise<void> {
  const client = await a.requireClient();
  if (!client) {
    return;
  }
  const status = await a.refreshIndexStatus();
  a.output.info(`index status:\n${statusTooltip(a.serverState, new ProgressTracker(), status)}`);
  a.output.show(true);
}

async function statusMenu(a: Anchorage): Promise<void> {
  type Entry = vscode.QuickPickItem & { run: () => unknown };
  const entries: Entry[] = [];
  if (a.serverState === 'missing') {
    entries.push({ label: '$(link-external) Open Install Instructions', run: () => vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL)) });
    entries.push({ label: '$(gear) Set anchorage.path', run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'anchorage.path') });
  } else {
    entries.push({ label: '$(search) Search Codebase', run: () => searchCodebase(a) });
    const pending = a.pendingCount;
    entries.push({
      label: '$(check-all) Approve Memory Proposals',
      description: pending > 0 ? `${pending} pending` : undefined,
      run: () => vscode.commands.executeCommand('anchorage.approveProposals'),
    });
    entries.push({ label: '$(comment-discussion) Record Correction', run: () => vscode.commands.executeCommand('anchorage.recordCorrection') });
    entries.push({ label: '$(copy) Copy AI Context', run: () => vscode.commands.executeCommand('anchorage.copyAIContext') });
    entries.push({ label: '$(info) Show Index Status', run: () => showIndexStatus(a) });
    entries.push({ label: '$(refresh) Re-index Workspace', run: () => reindex(a) });
  }
  entries.push({ label: '$(debug-restart) Restart Server', run: () => a.restart() });
  entries.push({ label: '$(output) Show Output', run: () => a.output.show() });
  const pick = await vscode.window.showQuickPick(entries, { title: 'Anchorage', placeHolder: 'Anchorage' });
  await pick?.run();
}
