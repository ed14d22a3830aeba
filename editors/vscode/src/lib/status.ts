// The status bar item: indexing progress from $/progress and the index status.
import { pendingSuffix, plural } from './memory';
import { FolderStatus, IndexStatus } from './types';

export type ProgressValue =
  | { kind: 'begin'; title: string; message?: string; percentage?: number; cancellable?: boolean }
  | { kind: 'report'; message?: string; percentage?: number; cancellable?: boolean }
  | { kind: 'end'; message?: string };

interface Task {
  title: string;
  message?: string;
  percentage?: number;
}

/** Tracks the server's work done progress by token. */
export class ProgressTracker {
  private tasks = new Map<string, Task>();
  private lastEnd?: string;

  /** Applies one $/progress value; returns whether anything changed. */
  update(token: string | number, value: ProgressValue): boolean {
    const key = String(token);
    switch (value?.kind) {
      case 'begin':
        this.tasks.set(key, { title: value.title, message: value.message, percentage: value.percentage });
        return true;
      case 'report': {
        const t = this.tasks.get(key);
        if (!t) {
          return false;
        }
        if (value.message !== undefined) {
          t.message = value.message;
        }
        if (value.percentage !== undefined) {
          t.percentage = value.percentage;
        }
        return true;
      }
      case 'end': {
        const t = this.tasks.get(key);
        if (!t) {
          return false;
        }
        this.tasks.delete(key);
        this.lastEnd = value.message ? `${t.title}: ${value.message}` : t.title;
        return true;
      }
    }
    return false;
  }

  get busy(): boolean {
    return this.tasks.size > 0;
  }

  /** The summary of the last finished task, e.g. "Indexing app: 22 files, 202 symbols". */
  get lastFinished(): string | undefined {
    return this.lastEnd;
  }

  /** The running tasks, oldest first. */
  running(): Task[] {
    return [...this.tasks.values()];
  }

  clear(): void {
    this.tasks.clear();
  }
}

/** The idle text: ⚓ (there is no anchor codicon) and the name. */
export const IDLE_TEXT = '⚓ Anchorage';

/**
 * The server's state: 'restarting' after it stopped unexpectedly,
 * 'outdated' when it runs but is older than the extension.
 */
export type ServerState = 'starting' | 'running' | 'stopped' | 'missing' | 'failed' | 'restarting' | 'outdated';

/** The status bar text; pending counts the memory proposals waiting for approval. */
export function statusText(state: ServerState, tracker: ProgressTracker, pending = 0): string {
  switch (state) {
    case 'missing':
      return '$(error) Anchorage: not installed';
    case 'failed':
      return '$(error) Anchorage';
    case 'stopped':
      return '$(circle-slash) Anchorage';
    case 'starting':
      return '$(sync~spin) Anchorage: starting';
    case 'restarting':
      return '$(sync~spin) Anchorage: restarting';
    case 'outdated':
      return '$(warning) Anchorage: update the server';
  }
  const tasks = tracker.running();
  if (tasks.length === 0) {
    return IDLE_TEXT + pendingSuffix(pending);
  }
  const t = tasks[0];
  const title = t.title.replace(/^anchorage:\s*/i, '');
  const verb = /\bre-?index/i.test(title) ? 're-indexing' : /\bindex/i.test(title) ? 'indexing' : title.toLowerCase();
  const pct = typeof t.percentage === 'number' ? ` ${Math.round(t.percentage)}%` : '';
  const more = tasks.length > 1 ? ` (+${tasks.length - 1})` : '';
  return `$(sync~spin) Anchorage: ${verb}${pct}${more}${pendingSuffix(pending)}`;
}

/** The status item's accessible label: the text without icons. */
export function statusLabel(state: ServerState, tracker: ProgressTracker, pending = 0): string {
  const text = statusText(state, tracker, pending)
    .replace(/\$\([^)]*\)\s*/g, '')
    .replace('⚓', '')
    .trim()
    .replace(/^Anchorage:?\s*/, '')
    .trim();
  const label = text.startsWith('·') ? `ready ${text}` : text || 'ready';
  return `Anchorage language server: ${label}`;
}

function folderLines(f: FolderStatus): string[] {
  const lines = [`${f.root}`];
  if (f.indexing) {
    lines.push(`  indexing: ${f.done}/${f.total} files`);
  }
  const counts: string[] = [];
  if (typeof f.files === 'number') counts.push(`${f.files} files`);
  if (typeof f.symbols === 'number') counts.push(`${f.symbols} symbols`);
  if (typeof f.edges === 'number') counts.push(`${f.edges} edges`);
  if (counts.length > 0) {
    lines.push(`  ${counts.join(', ')}`);
  }
  const langs = Object.entries(f.files_by_language ?? {})
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([l, n]) => `${l} ${n}`);
  if (langs.length > 0) {
    lines.push(`  ${langs.join(', ')}`);
  }
  if (f.files_with_syntax_errors) {
    lines.push(`  ${f.files_with_syntax_errors} files with syntax errors`);
  }
  return lines;
}

/** The status bar tooltip: running work, then each folder's index. */
export function statusTooltip(state: ServerState, tracker: ProgressTracker, status?: IndexStatus, error?: string, pending = 0): string {
  const lines: string[] = [];
  switch (state) {
    case 'missing':
      lines.push('The anchorage binary was not found. Click for the install instructions.');
      break;
    case 'failed':
      lines.push(`The language server failed${error ? `: ${error}` : ''}. Click for options.`);
      break;
    case 'stopped':
      lines.push('The language server is not running.');
      break;
    case 'starting':
      lines.push('Starting the language server…');
      break;
    case 'restarting':
      lines.push('The language server stopped unexpectedly and is being restarted.');
      break;
    case 'outdated':
      lines.push(`The language server is older than this extension${error ? `: ${error}` : ''}. Click for options.`);
      break;
  }
  for (const t of tracker.running()) {
    const pct = typeof t.percentage === 'number' ? ` ${Math.round(t.percentage)}%` : '';
    lines.push(`${t.title}${pct}${t.message ? ` — ${t.message}` : ''}`);
  }
  if (pending > 0) {
    lines.push(`Memory: ${plural(pending, 'proposal')} waiting for approval (Anchorage: Approve Memory Proposals)`);
  }
  const folders = status?.folders ?? [];
  if (folders.length > 0) {
    lines.push('Index:');
    for (const f of folders) {
      lines.push(...folderLines(f));
    }
  } else if (tracker.lastFinished) {
    lines.push(tracker.lastFinished);
  }
  return lines.join('\n');
}
