// Captures the memory fixtures of the unit tests (test/unit/fixtures/memory.*.json)
// from a real `anchorage serve` over stdio:
//
//   node test/capture-fixtures.mjs /path/to/anchorage
//
// It copies testdata/sampleapp to a temporary folder (as "sampleapp"), uses
// a fresh data directory, records three alike corrections, proposes,
// approves (the rule is anchored), records three more, proposes again, and
// writes each answer. Then the CLI (another session) records three more and
// proposes, and the server lists every pending proposal
// (memory.proposals.json); last, the error of a command the server does not
// know (unknownCommand.json). Temporary paths in the answers are replaced by
// /work/sampleapp so the fixtures do not change from run to run.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import rpc from 'vscode-jsonrpc/node';

const bin = process.argv[2];
if (!bin) {
  console.error('usage: node test/capture-fixtures.mjs /path/to/anchorage');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const out = join(here, 'unit', 'fixtures');
const tmp = mkdtempSync(join(tmpdir(), 'anchorage-fixtures-'));
const root = join(tmp, 'sampleapp');
cpSync(join(repo, 'testdata', 'sampleapp'), root, { recursive: true });

const proc = spawn(bin, ['--data-dir', join(tmp, 'data'), 'serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(proc.stdout), new rpc.StreamMessageWriter(proc.stdin));
conn.onRequest(() => null);
conn.onNotification(() => {});
conn.listen();

const rootURI = pathToFileURL(root).href;
const uriOf = (rel) => pathToFileURL(join(root, rel)).href;
const exec = (command, ...args) => conn.sendRequest('workspace/executeCommand', { command, arguments: args });
const scrub = (v) => JSON.parse(JSON.stringify(v).replaceAll(rootURI, 'file:///work/sampleapp').replaceAll(root, '/work/sampleapp').replace(/"20\d\d-[^"]+Z"/g, '"2026-11-21T10:00:00Z"'));
const save = (name, v) => {
  writeFileSync(join(out, name), JSON.stringify(scrub(v), null, 2) + '\n');
  console.log(`wrote ${name}`);
};

try {
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: rootURI,
    capabilities: { workspace: { codeLens: { refreshSupport: true } } },
    workspaceFolders: [{ uri: rootURI, name: 'sampleapp' }],
  });
  await conn.sendNotification('initialized', {});
  // Wait for the index.
  for (let i = 0; i < 300; i++) {
    const st = await exec('anchorage.index.status');
    const f = st.folders?.[0];
    if (f && !f.indexing && f.total > 0 && f.files > 1) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const repoURI = uriOf('users/repo.go');
  const text = readFileSync(join(root, 'users/repo.go'), 'utf8');
  await conn.sendNotification('textDocument/didOpen', { textDocument: { uri: repoURI, languageId: 'go', version: 1, text } });
  const corrections = [
    'Wrap errors with context using fmt.Errorf and %w',
    'Wrap the error with context with fmt.Errorf and %w',
    'Always wrap errors with context: fmt.Errorf with %w',
  ];
  let rec;
  for (const [i, t] of corrections.entries()) {
    const arg = { text: t, uri: repoURI };
    if (i === 0) arg.range = { start: { line: 24, character: 0 }, end: { line: 26, character: 1 } };
    rec = await exec('anchorage.memory.recordCorrection', arg);
  }
  save('memory.recordCorrection.json', rec);
  const proposed = await exec('anchorage.memory.propose');
  save('memory.propose.json', proposed);
  const approved = await exec('anchorage.memory.approve', { id: proposed.proposals[0].id });
  save('memory.approve.json', approved);
  for (const t of ['Log every HTTP request with its duration', 'Log each HTTP request and how long it took', 'Always log HTTP requests with their duration']) {
    await exec('anchorage.memory.recordCorrection', { text: t, uri: uriOf('api/handlers.go') });
  }
  save('memory.propose2.json', await exec('anchorage.memory.propose'));
  save('memory.list.json', await exec('anchorage.memory.list'));
  save('stats.json', await exec('anchorage.stats'));
  save('context.inject.json', await exec('anchorage.context.inject', { uri: uriOf('internal/db/db.go'), budget: 400 }));
  // A proposal of another session: the CLI's, in the same data directory.
  const mem = (...args) => execFileSync(bin, ['--data-dir', join(tmp, 'data'), '--root', root, 'memory', ...args], { stdio: 'ignore' });
  for (const t of ['Use logging instead of print in workers', 'Use the logging module instead of print in workers', 'Always use logging instead of print in workers']) {
    mem('correct', t, '--file', 'worker/runner.py');
  }
  mem('propose');
  save('memory.proposals.json', await exec('anchorage.memory.proposals'));
  const unknown = await exec('anchorage.memory.nosuch').then(
    () => {
      throw new Error('anchorage.memory.nosuch succeeded');
    },
    (err) => ({ code: err.code, message: err.message }),
  );
  save('unknownCommand.json', unknown);
  await conn.sendRequest('shutdown');
  await conn.sendNotification('exit');
} finally {
  conn.dispose();
  proc.kill();
  rmSync(tmp, { recursive: true, force: true });
}
