import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import {
  buildServerSettings,
  INSTALL_COMMAND,
  missingMessage,
  normalizeLogLevel,
  parseServerLogLine,
  resolveServerPath,
  serverArgs,
} from '../../src/lib/server';

const fsWith = (files: string[]) => ({ isExecutable: (f: string) => files.includes(f) });

describe('resolveServerPath', () => {
  it('finds anchorage on PATH when no setting is given', () => {
    const r = resolveServerPath('', { PATH: '/usr/bin:/home/u/go/bin' }, fsWith(['/home/u/go/bin/anchorage']), 'linux');
    assert.deepEqual(r, { command: '/home/u/go/bin/anchorage', found: true, searched: ['/usr/bin/anchorage', '/home/u/go/bin/anchorage'] });
  });
  it('uses the configured file', () => {
    const r = resolveServerPath(' /opt/anchorage/bin/anchorage ', { PATH: '' }, fsWith(['/opt/anchorage/bin/anchorage']), 'linux');
    assert.equal(r.command, '/opt/anchorage/bin/anchorage');
    assert.equal(r.found, true);
  });
  it('expands ~ in the setting', () => {
    const r = resolveServerPath('~/go/bin/anchorage', { HOME: '/home/u' }, fsWith(['/home/u/go/bin/anchorage']), 'linux');
    assert.equal(r.command, '/home/u/go/bin/anchorage');
    assert.equal(r.found, true);
  });
  it('looks a bare configured name up on PATH', () => {
    const r = resolveServerPath('anchorage-dev', { PATH: '/a:/b' }, fsWith(['/b/anchorage-dev']), 'linux');
    assert.equal(r.command, '/b/anchorage-dev');
  });
  it('reports a missing binary', () => {
    const r = resolveServerPath(undefined, { PATH: '/a' }, fsWith([]), 'linux');
    assert.equal(r.found, false);
    assert.equal(r.command, 'anchorage');
    assert.deepEqual(r.searched, ['/a/anchorage']);
    const bad = resolveServerPath('/nope/anchorage', { PATH: '/a' }, fsWith([]), 'linux');
    assert.equal(bad.found, false);
  });
  it('tries PATHEXT on Windows', () => {
    const r = resolveServerPath('', { PATH: 'C:\\go\\bin', PATHEXT: '.EXE' }, fsWith(['C:\\go\\bin\\anchorage.EXE']), 'win32');
    assert.equal(r.command, 'C:\\go\\bin\\anchorage.EXE');
  });
});

describe('missingMessage', () => {
  it('says how to install', () => {
    assert.ok(missingMessage({ command: 'anchorage', found: false, searched: [] }, '').includes(INSTALL_COMMAND));
    assert.match(missingMessage({ command: '/x', found: false, searched: [] }, '/x'), /not found at "\/x"/);
    // Notifications show text as it is: no Markdown backticks.
    for (const setting of ['', '/x']) {
      assert.ok(!missingMessage({ command: 'anchorage', found: false, searched: [] }, setting).includes('`'));
    }
  });
});

describe('serverArgs', () => {
  it('passes the log level', () => {
    assert.deepEqual(serverArgs('debug'), ['serve', '--log-level', 'debug']);
    assert.deepEqual(serverArgs(undefined), ['serve', '--log-level', 'info']);
    assert.deepEqual(serverArgs('WARN'), ['serve', '--log-level', 'warn']);
    assert.deepEqual(serverArgs('loud'), ['serve', '--log-level', 'info']);
  });
  it('adds the log file when set', () => {
    assert.deepEqual(serverArgs('info', ' /tmp/a.log '), ['serve', '--log-level', 'info', '--log-file', '/tmp/a.log']);
    assert.deepEqual(serverArgs('info', ''), ['serve', '--log-level', 'info']);
  });
  it('normalizes levels', () => {
    assert.equal(normalizeLogLevel('Error'), 'error');
    assert.equal(normalizeLogLevel(''), 'info');
  });
});

describe('buildServerSettings', () => {
  const getter = (o: Record<string, unknown>) => <T>(k: string) => o[k] as T | undefined;
  it('sends only the settings the server knows, and only set ones', () => {
    assert.deepEqual(buildServerSettings(getter({})), {});
    assert.deepEqual(
      buildServerSettings(getter({ excludedDirectories: null, maxFileSize: null, dataDir: '', logLevel: 'info', path: '/x', 'search.topK': 5 })),
      { logLevel: 'info' },
    );
  });
  it('passes every server setting when set', () => {
    assert.deepEqual(
      buildServerSettings(getter({ excludedDirectories: ['gen', '', 3, '**/fixtures'], maxFileSize: 2048.5, dataDir: ' /data ', logLevel: 'DEBUG' })),
      { excludedDirectories: ['gen', '**/fixtures'], maxFileSize: 2048, dataDir: '/data', logLevel: 'debug' },
    );
  });
  it('nests the memory and embedding settings as lsp.Settings has them', () => {
    assert.deepEqual(
      buildServerSettings(
        getter({
          'memory.project': ' shop ',
          'memory.anchorThreshold': 0.6,
          'memory.llm.url': 'http://llm:11434',
          'memory.llm.model': 'qwen2.5',
          'memory.llm.timeout': 20,
          'memory.documents': ['docs/**/*.md', '', 7],
          'embedding.provider': 'ollama',
          'embedding.model': 'nomic-embed-text',
          'embedding.url': '',
        }),
      ),
      {
        memory: { project: 'shop', anchorThreshold: 0.6, llm: { url: 'http://llm:11434', model: 'qwen2.5', timeout: 20 }, documents: ['docs/**/*.md'] },
        embedding: { provider: 'ollama', model: 'nomic-embed-text' },
      },
    );
  });
  it('leaves out unset and out-of-range memory settings', () => {
    assert.deepEqual(buildServerSettings(getter({ 'memory.anchorThreshold': 1.5, 'memory.llm.timeout': 0, 'memory.project': '', 'embedding.model': 'm' })), {});
    assert.deepEqual(buildServerSettings(getter({ 'memory.llm.model': 'm' })), { memory: { llm: { model: 'm' } } });
  });
  it('keeps an empty exclusion list (index everything)', () => {
    assert.deepEqual(buildServerSettings(getter({ excludedDirectories: [] })), { excludedDirectories: [] });
  });
  it('ignores nonsense sizes', () => {
    assert.deepEqual(buildServerSettings(getter({ maxFileSize: 0 })), {});
    assert.deepEqual(buildServerSettings(getter({ maxFileSize: -1 })), {});
    assert.deepEqual(buildServerSettings(getter({ maxFileSize: '10' })), {});
  });
});

describe('parseServerLogLine', () => {
  it('maps zap console lines to their level without the time', () => {
    assert.deepEqual(parseServerLogLine('2026-11-21T10:30:53.912Z\tinfo\tindexed /w: 22 files'), { level: 'info', message: 'indexed /w: 22 files' });
    assert.deepEqual(parseServerLogLine('2026-11-21T10:30:53.912Z\twarn\tregistering file watchers failed\t{"error": "x"}'), {
      level: 'warn',
      message: 'registering file watchers failed {"error": "x"}',
    });
    assert.deepEqual(parseServerLogLine('2026-11-21T10:30:53.912+0100\terror\tboom'), { level: 'error', message: 'boom' });
    assert.deepEqual(parseServerLogLine('2026-11-21T10:30:53.912Z\tdebug\tcall initialize'), { level: 'info', message: '(debug) call initialize' });
  });
  it('treats anything else as an error', () => {
    assert.deepEqual(parseServerLogLine('panic: runtime error'), { level: 'error', message: 'panic: runtime error' });
    assert.deepEqual(parseServerLogLine('goroutine 1 [running]:'), { level: 'error', message: 'goroutine 1 [running]:' });
  });
});
