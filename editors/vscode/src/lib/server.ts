// Finding and starting the server binary.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const INSTALL_URL = 'https://github.com/anchorage-dev/anchorage#install';
export const INSTALL_COMMAND = 'go install github.com/anchorage-dev/anchorage@latest';
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

export interface Env {
  PATH?: string;
  PATHEXT?: string;
  HOME?: string;
}

export interface FS {
  isExecutable(file: string): boolean;
}

export const realFS: FS = {
  isExecutable(file: string): boolean {
    try {
      const st = fs.statSync(file);
      if (!st.isFile()) {
        return false;
      }
      if (process.platform === 'win32') {
        return true;
      }
      fs.accessSync(file, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
};

export interface Resolved {
  /** The command to run, absolute when found. */
  command: string;
  found: boolean;
  /** Where it was looked for, for the error message. */
  searched: string[];
}

function expandHome(p: string, env: Env): string {
  if (env.HOME && (p === '~' || p.startsWith('~/'))) {
    return path.join(env.HOME, p.slice(1));
  }
  return p;
}

/**
 * The server binary: the `anchorage.path` setting when set (a file, or a
 * bare name looked up on PATH), else `anchorage` on PATH.
 */
export function resolveServerPath(setting: string | undefined, env: Env, fsys: FS = realFS, platform: string = process.platform): Resolved {
  const configured = (setting ?? '').trim();
  const name = configured || 'anchorage';
  const p = platform === 'win32' ? path.win32 : path.posix;
  if (configured && (configured.includes('/') || configured.includes('\\') || configured.startsWith('~'))) {
    const file = expandHome(configured, env);
    return { command: file, found: fsys.isExecutable(file), searched: [file] };
  }
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean)] : [''];
  const dirs = (env.PATH ?? '').split(platform === 'win32' ? ';' : ':').filter(Boolean);
  const searched: string[] = [];
  for (const dir of dirs) {
    for (const ext of exts) {
      const file = p.join(dir, name + ext);
      searched.push(file);
      if (fsys.isExecutable(file)) {
        return { command: file, found: true, searched };
      }
    }
  }
  return { command: name, found: false, searched };
}

/** The log level to pass, defaulting to info for unknown values. */
export function normalizeLogLevel(level: string | undefined): string {
  const l = (level ?? '').toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(l) ? l : 'info';
}

/** Arguments of the server process. */
export function serverArgs(logLevel: string | undefined, logFile?: string): string[] {
  const args = ['serve', '--log-level', normalizeLogLevel(logLevel)];
  if (logFile && logFile.trim() !== '') {
    args.push('--log-file', logFile.trim());
  }
  return args;
}

/** The user-facing settings of the server (type Settings in lsp/general.go). */
export interface ServerSettings {
  excludedDirectories?: string[];
  maxFileSize?: number;
  dataDir?: string;
  logLevel?: string;
  embedding?: { provider?: string; url?: string; model?: string; apiKeyEnv?: string };
  memory?: {
    project?: string;
    anchorThreshold?: number;
    llm?: { url?: string; model?: string; timeout?: number };
    documents?: string[];
    proposalSeverity?: string;
  };
  indexDependencies?: boolean;
}

/** Values of anchorage.memory.proposalSeverity. */
export const PROPOSAL_SEVERITIES = ['information', 'warning', 'hint', 'off'] as const;

function str(get: ConfigGet, key: string): string | undefined {
  const v = get<unknown>(key);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function num(get: ConfigGet, key: string, ok: (n: number) => boolean): number | undefined {
  const v = get<unknown>(key);
  return typeof v === 'number' && Number.isFinite(v) && ok(v) ? v : undefined;
}

/** Drops undefined fields; undefined when none is left. */
function compact<T extends object>(o: T): T | undefined {
  const entries = Object.entries(o).filter(([, v]) => v !== undefined);
  return entries.length > 0 ? (Object.fromEntries(entries) as T) : undefined;
}

/** Reads a configuration value. */
export type ConfigGet = <T>(key: string) => T | undefined;

/**
 * The settings sent to the server in initializationOptions and in answers
 * to workspace/configuration: only the fields the server knows, and only
 * those set, so unset ones keep the server's defaults.
 */
export function buildServerSettings(get: ConfigGet): ServerSettings {
  const out: ServerSettings = {};
  const excluded = get<unknown>('excludedDirectories');
  if (Array.isArray(excluded)) {
    out.excludedDirectories = excluded.filter((x): x is string => typeof x === 'string' && x.trim() !== '');
  }
  const max = get<unknown>('maxFileSize');
  if (typeof max === 'number' && Number.isFinite(max) && max > 0) {
    out.maxFileSize = Math.floor(max);
  }
  const dataDir = get<unknown>('dataDir');
  if (typeof dataDir === 'string' && dataDir.trim() !== '') {
    out.dataDir = dataDir.trim();
  }
  const level = get<unknown>('logLevel');
  if (typeof level === 'string' && level !== '') {
    out.logLevel = normalizeLogLevel(level);
  }
  const provider = str(get, 'embedding.provider');
  if (provider) {
    out.embedding = compact({ provider, url: str(get, 'embedding.url'), model: str(get, 'embedding.model'), apiKeyEnv: str(get, 'embedding.apiKeyEnv') });
  }
  const docs = get<unknown>('memory.documents');
  const memory = compact({
    project: str(get, 'memory.project'),
    anchorThreshold: num(get, 'memory.anchorThreshold', (n) => n > 0 && n <= 1),
    llm: compact({ url: str(get, 'memory.llm.url'), model: str(get, 'memory.llm.model'), timeout: num(get, 'memory.llm.timeout', (n) => n > 0) }),
    documents: Array.isArray(docs) ? docs.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : undefined,
    proposalSeverity: (PROPOSAL_SEVERITIES as readonly string[]).includes(str(get, 'memory.proposalSeverity') ?? '')
      ? str(get, 'memory.proposalSeverity')
      : undefined,
  });
  if (memory) {
    out.memory = memory;
  }
  if (get<unknown>('indexDependencies') === true) {
    out.indexDependencies = true;
  }
  return out;
}

/** Settings that the server reads; a change is sent with didChangeConfiguration. */
export const SERVER_SETTING_KEYS = ['excludedDirectories', 'maxFileSize', 'dataDir', 'logLevel', 'embedding', 'memory', 'indexDependencies'] as const;

/** Settings that need the server restarted. */
export const RESTART_SETTING_KEYS = ['path', 'logFile'] as const;

/** The message shown when the binary is missing. */
export function missingMessage(r: Resolved, setting: string | undefined): string {
  if (setting && setting.trim() !== '') {
    return `Anchorage: the language server was not found at "${setting.trim()}" (setting anchorage.path). Install it with "${INSTALL_COMMAND}", or fix the setting.`;
  }
  return `Anchorage: the language server (anchorage) was not found on PATH. Install it with "${INSTALL_COMMAND}", or set anchorage.path.`;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * One line of the server's log (zap's console format: time, level,
 * message, JSON fields, tab-separated) as the output channel should show
 * it: the channel adds its own time, and server debug lines stay visible
 * at the channel's default level, marked "(debug)". Lines in another
 * format (a Go panic's trace) are errors.
 */
export function parseServerLogLine(line: string): { level: LogLevel; message: string } {
  const m = /^\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d)?\t([A-Za-z]+)\t(.*)$/.exec(line);
  if (!m) {
    return { level: 'error', message: line };
  }
  const message = m[2].replace(/\t/g, ' ');
  switch (m[1].toLowerCase()) {
    case 'debug':
      return { level: 'info', message: `(debug) ${message}` };
    case 'info':
      return { level: 'info', message };
    case 'warn':
      return { level: 'warn', message };
    default:
      return { level: 'error', message };
  }
}
