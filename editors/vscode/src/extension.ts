// The Anchorage extension: starts `anchorage serve` with vscode-languageclient
// and adds the commands and the status bar item.
import { Commands } from './lib/commands.gen';
import * as readline from 'node:readline';
import type { Readable } from 'node:stream';
import * as vscode from 'vscode';
import {
  CancellationToken,
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';

import { registerCommands } from './commands';
import { Memory } from './memory';
import {
  buildServerSettings,
  INSTALL_URL,
  missingMessage,
  parseServerLogLine,
  resolveServerPath,
  RESTART_SETTING_KEYS,
  SERVER_SETTING_KEYS,
  serverArgs,
} from './lib/server';
import { ProgressTracker, ProgressValue, ServerState, statusLabel, statusText, statusTooltip } from './lib/status';
import { IndexStatus } from './lib/types';
import { errorMessage } from './lib/errors';
import { CrashTracker, gaveUpMessage, missingCommands, outdatedMessage, restartedMessage } from './lib/health';

export const LANGUAGES = ['go', 'python', 'javascript', 'typescript', 'typescriptreact', 'rust', 'java'];
export const INDEX_STATUS_COMMAND = Commands.indexStatus;

/** What the commands need from the running extension. */
export class Anchorage implements vscode.Disposable {
  client: LanguageClient | undefined;
  readonly output: vscode.LogOutputChannel;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly tracker = new ProgressTracker();
  private state: ServerState = 'stopped';
  private indexStatus: IndexStatus | undefined;
  private lastError: string | undefined;
  private statusTimer: ReturnType<typeof setTimeout> | undefined;
  private starting: Promise<void> | undefined;
  private stateListener: vscode.Disposable | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private pending = 0;
  private readonly crashes = new CrashTracker();
  /** The commands the extension needs that the running server lacks (an older server). */
  private missing: string[] = [];
  /** The servers already told to be outdated (path and version), to tell each once. */
  private readonly toldOutdated = new Set<string>();
  /** The memory surfaces (commands, tree view, proposal count). */
  memory: Memory | undefined;

  constructor(readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('Anchorage', { log: true });
    this.statusItem = vscode.window.createStatusBarItem('anchorage.status', vscode.StatusBarAlignment.Left, 10);
    this.statusItem.name = 'Anchorage';
    this.statusItem.command = 'anchorage.statusMenu';
    this.render();
    this.statusItem.show();
    this.disposables.push(this.output, this.statusItem);
  }

  config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('anchorage');
  }

  /** Starts the language server; reports a missing binary with a way to install it. */
  start(): Promise<void> {
    if (!this.starting) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  private async doStart(): Promise<void> {
    if (this.client) {
      return;
    }
    const cfg = this.config();
    const setting = cfg.get<string>('path');
    const resolved = resolveServerPath(setting, process.env);
    if (!resolved.found) {
      this.setState('missing');
      this.output.error(`${missingMessage(resolved, setting)} Looked in: ${resolved.searched.join(', ') || '(PATH is empty)'}`);
      void this.reportMissing(setting);
      return;
    }
    const args = serverArgs(cfg.get<string>('logLevel'), cfg.get<string>('logFile'));
    this.output.info(`starting ${resolved.command} ${args.join(' ')}`);
    // No transport: stdio without the "--stdio" flag that TransportKind.stdio would add.
    const executable = { command: resolved.command, args, options: { env: process.env } };
    const serverOptions: ServerOptions = { run: executable, debug: executable };
    const clientOptions: LanguageClientOptions = {
      documentSelector: LANGUAGES.map((language) => ({ scheme: 'file', language })),
      outputChannel: this.output,
      // Failed requests go to the output channel, not to a notification
      // each: a stopped or older server would stack them up. The
      // extension tells the user itself, once (errorHandler, checkServer).
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      errorHandler: {
        error: (_error, _message, count) => ({ action: count !== undefined && count <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true }),
        closed: () => this.serverClosed(client),
      },
      // The server logs to stderr; show each line at its own level.
      stdioOptions: {
        stdout: (input, out) => lines(input, (l) => out.info(l)),
        stderr: (input, out) => lines(input, (l) => {
          const { level, message } = parseServerLogLine(l);
          out[level](message);
        }),
      },
      initializationOptions: () => ({ anchorage: buildServerSettings((k) => this.config().get(k)) }),
      middleware: {
        // Commands of code actions and code lenses (approving a proposal
        // from its quick fix): their answers update the tree and count.
        executeCommand: async (command, args, next) => {
          const res = await next(command, args);
          this.memory?.afterServerCommand(command, res, true);
          return res;
        },
        handleWorkDoneProgress: (token, params, next) => {
          if (this.tracker.update(token, params as ProgressValue)) {
            this.render();
            if (params.kind === 'end') {
              this.refreshIndexStatusSoon();
            }
          }
          next(token, params);
        },
        workspace: {
          // Answer with the settings the server knows, set ones only.
          configuration: async (params, token, next) => {
            const res = await next(params, token);
            if (!Array.isArray(res)) {
              return res;
            }
            return params.items.map((item, i) => {
              if (item.section !== 'anchorage') {
                return res[i];
              }
              const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
              const c = vscode.workspace.getConfiguration('anchorage', scope);
              return buildServerSettings((k) => c.get(k));
            });
          },
        },
      },
    };
    const client = new QuietLanguageClient('anchorage', 'Anchorage', serverOptions, clientOptions);
    this.client = client;
    this.stateListener?.dispose();
    this.stateListener = client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Running) {
        this.checkServer(client, resolved.command);
        this.refreshIndexStatusSoon(0);
        this.memory?.refreshCountSoon(0);
      } else if (e.newState === State.Starting) {
        this.setState(this.state === 'restarting' ? 'restarting' : 'starting');
      } else {
        this.tracker.clear();
        this.setState(this.state === 'failed' || this.state === 'restarting' ? this.state : 'stopped');
      }
    });
    this.setState('starting');
    try {
      await client.start();
      this.checkServer(client, resolved.command);
      this.refreshIndexStatusSoon(0);
      this.memory?.tree.refresh();
      this.memory?.refreshCountSoon(0);
    } catch (err) {
      this.lastError = errorMessage(err);
      this.setState('failed');
      this.output.error(`the language server did not start: ${this.lastError}`);
      if (this.client === client) {
        this.client = undefined;
      }
      void vscode.window
        .showErrorMessage(`Anchorage: the language server did not start: ${this.lastError}`, 'Show Output', 'Install Instructions')
        .then((choice) => {
          if (choice === 'Show Output') {
            this.output.show();
          } else if (choice === 'Install Instructions') {
            void vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
          }
        });
    }
  }

  /**
   * Sets the state of a server that started: running, or outdated when it
   * lacks commands the extension calls on its own, which is told once per
   * server binary and version.
   */
  private checkServer(client: LanguageClient, command: string): void {
    if (this.client !== client) {
      return;
    }
    const init = client.initializeResult;
    this.missing = missingCommands(init?.capabilities.executeCommandProvider?.commands);
    if (this.missing.length === 0) {
      this.lastError = undefined;
      this.setState('running');
      return;
    }
    const version = init?.serverInfo?.version;
    this.lastError = `it has no ${this.missing.join(', ')}`;
    this.setState('outdated');
    const msg = outdatedMessage(command, version, this.missing);
    this.output.warn(msg);
    const key = `${command}\u0000${version ?? ''}`;
    if (this.toldOutdated.has(key)) {
      return;
    }
    this.toldOutdated.add(key);
    void vscode.window.showWarningMessage(msg, 'Install Instructions', 'Show Output').then((choice) => {
      if (choice === 'Show Output') {
        this.output.show();
      } else if (choice === 'Install Instructions') {
        void vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
      }
    });
  }

  /** Whether the running server offers a command the extension calls on its own. */
  offers(command: string): boolean {
    return !this.missing.includes(command);
  }

  /**
   * The language client's errorHandler.closed: the server stopped without
   * being asked (killed, crashed). It is restarted, and the user told
   * once; when it stops too often, it is left stopped, with one message
   * that offers to restart it.
   */
  private serverClosed(client: LanguageClient): { action: CloseAction; handled: boolean } {
    if (this.client !== client) {
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    const action = this.crashes.stopped(Date.now());
    if (action === 'give-up') {
      const msg = gaveUpMessage(this.crashes.count, this.crashes.windowMs);
      this.lastError = 'it stopped too often';
      this.setState('failed');
      this.output.error(msg);
      void vscode.window.showErrorMessage(msg, 'Restart Server', 'Show Output').then((choice) => {
        if (choice === 'Restart Server') {
          void vscode.commands.executeCommand('anchorage.restartServer');
        } else if (choice === 'Show Output') {
          this.output.show();
        }
      });
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    this.output.warn('the language server stopped unexpectedly: restarting it');
    this.setState('restarting');
    if (action === 'restart-and-tell') {
      void vscode.window.showWarningMessage(restartedMessage(), 'Show Output').then((choice) => {
        if (choice === 'Show Output') {
          this.output.show();
        }
      });
    }
    return { action: CloseAction.Restart, handled: true };
  }

  private async reportMissing(setting: string | undefined): Promise<void> {
    const install = 'Install Instructions';
    const configure = 'Set anchorage.path';
    const choice = await vscode.window.showErrorMessage(missingMessage({ command: '', found: false, searched: [] }, setting), install, configure);
    if (choice === install) {
      await vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
    } else if (choice === configure) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'anchorage.path');
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.stateListener?.dispose();
    this.stateListener = undefined;
    this.tracker.clear();
    if (client) {
      try {
        await client.stop();
      } catch (err) {
        this.output.warn(`stopping the server: ${errorMessage(err)}`);
      }
      await client.dispose().catch(() => undefined);
    }
    this.setState('stopped');
  }

  async restart(): Promise<void> {
    this.crashes.reset();
    await this.stop();
    await this.start();
  }

  /** The running client, or undefined after telling the user why there is none. */
  async requireClient(): Promise<LanguageClient | undefined> {
    if (this.starting) {
      await this.starting;
    }
    if (!this.client && this.state !== 'missing') {
      await this.start();
    }
    if (this.client && this.client.state === State.Running) {
      return this.client;
    }
    if (this.state === 'missing') {
      void this.reportMissing(this.config().get<string>('path'));
    } else {
      void vscode.window.showErrorMessage('Anchorage: the language server is not running.', 'Show Output').then((c) => {
        if (c) {
          this.output.show();
        }
      });
    }
    return undefined;
  }

  /** Runs a server command through workspace/executeCommand. */
  async execute<T>(command: string, args: unknown[], token?: CancellationToken): Promise<T> {
    const client = this.client;
    if (!client) {
      throw new Error('the Anchorage language server is not running');
    }
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token)) as T;
  }

  /** Fetches anchorage.index.status for the tooltip. */
  async refreshIndexStatus(): Promise<IndexStatus | undefined> {
    if (!this.client || this.client.state !== State.Running || !this.offers(INDEX_STATUS_COMMAND)) {
      return undefined;
    }
    try {
      this.indexStatus = await this.execute<IndexStatus>(INDEX_STATUS_COMMAND, []);
    } catch (err) {
      this.output.warn(`${INDEX_STATUS_COMMAND}: ${errorMessage(err)}`);
    }
    this.render();
    return this.indexStatus;
  }

  private refreshIndexStatusSoon(ms = 200): void {
    if (this.statusTimer) {
      clearTimeout(this.statusTimer);
    }
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      void this.refreshIndexStatus();
    }, ms);
  }

  get serverState(): ServerState {
    return this.state;
  }

  /** Memory proposals waiting for approval, for the status bar item. */
  get pendingCount(): number {
    return this.pending;
  }

  setPending(n: number): void {
    if (n !== this.pending) {
      this.pending = n;
      this.render();
    }
  }

  private setState(s: ServerState): void {
    const changed = s !== this.state;
    this.state = s;
    this.render();
    if (changed) {
      this.memory?.tree.refresh(); // its welcome content follows the server's state
    }
  }

  private render(): void {
    this.statusItem.text = statusText(this.state, this.tracker, this.pending);
    this.statusItem.accessibilityInformation = { label: statusLabel(this.state, this.tracker, this.pending), role: 'button' };
    this.statusItem.tooltip = statusTooltip(this.state, this.tracker, this.indexStatus, this.lastError, this.pending);
    this.statusItem.backgroundColor =
      this.state === 'missing' || this.state === 'failed'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : this.state === 'outdated'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }

  /** Sends changed server settings; restarts for settings read at start. */
  async onConfigurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
    if (RESTART_SETTING_KEYS.some((k) => e.affectsConfiguration(`anchorage.${k}`))) {
      this.output.info('anchorage.path or anchorage.logFile changed: restarting the server');
      await this.restart();
      return;
    }
    if (this.state === 'failed' && SERVER_SETTING_KEYS.some((k) => e.affectsConfiguration(`anchorage.${k}`))) {
      // The server did not start (a bad data directory, an index it
      // cannot read): a changed setting may be the fix, so try again.
      this.output.info('a server setting changed after a failed start: starting the server again');
      await this.restart();
      return;
    }
    if (SERVER_SETTING_KEYS.some((k) => e.affectsConfiguration(`anchorage.${k}`)) && this.client?.state === State.Running) {
      const settings = buildServerSettings((k) => this.config().get(k));
      await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { anchorage: settings } });
    }
  }

  dispose(): void {
    if (this.statusTimer) {
      clearTimeout(this.statusTimer);
    }
    this.stateListener?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/**
 * A language client that logs its errors to the output channel and never
 * shows them as notifications: a server that fails to start would
 * otherwise give two (the client's "couldn't create connection" and the
 * extension's own), and a stopped one one per failed request. The
 * extension tells the user itself, once, with what to do.
 */
class QuietLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, _showNotification?: boolean | 'force'): void {
    super.error(message, data, false);
  }
}

function lines(input: Readable, fn: (line: string) => void): void {
  readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on('line', fn);
}

let anchorage: Anchorage | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  anchorage = new Anchorage(context);
  context.subscriptions.push(anchorage);
  registerCommands(context, anchorage);
  const memory = new Memory(anchorage);
  anchorage.memory = memory;
  memory.register(context);
  context.subscriptions.push(memory);
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => anchorage?.onConfigurationChanged(e)));
  await anchorage.start();
}

export async function deactivate(): Promise<void> {
  await anchorage?.stop();
  anchorage = undefined;
}
