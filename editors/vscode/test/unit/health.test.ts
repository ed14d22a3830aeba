import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import { Commands } from '../../src/lib/commands.gen';
import { CrashTracker, gaveUpMessage, missingCommands, outdatedMessage, REQUIRED_COMMANDS } from '../../src/lib/health';
import { ProgressTracker, statusLabel, statusText, statusTooltip } from '../../src/lib/status';

describe('missingCommands', () => {
  it('finds none in the current server', () => {
    assert.deepEqual(missingCommands(Object.values(Commands)), []);
  });
  it('lists what an older server lacks, in a fixed order', () => {
    // The server before memory: search and the graph commands only.
    const old = [Commands.search, Commands.callers, Commands.callees, Commands.reindex, Commands.indexStatus];
    assert.deepEqual(missingCommands(old), [Commands.memoryList, Commands.stats]);
  });
  it('takes a server without executeCommandProvider as lacking all', () => {
    assert.deepEqual(missingCommands(undefined), [...REQUIRED_COMMANDS]);
  });
});

describe('outdatedMessage', () => {
  it('names the binary, its version, what it lacks and how to update, without backticks', () => {
    const m = outdatedMessage('/usr/bin/anchorage', 'v0.1.0', [Commands.memoryList, Commands.stats]);
    assert.match(m, /^Anchorage: the language server \/usr\/bin\/anchorage \(version v0\.1\.0\) is older than this extension/);
    assert.match(m, /anchorage\.memory\.list, anchorage\.stats commands/);
    assert.match(m, /go install github\.com\/anchorage-dev\/anchorage@latest/);
    assert.equal(m.includes('`'), false);
  });
  it('leaves out an unknown version and says command for one', () => {
    const m = outdatedMessage('anchorage', '', [Commands.stats]);
    assert.match(m, /anchorage is older than this extension: it has no anchorage\.stats command\./);
  });
});

describe('CrashTracker', () => {
  it('tells the first stop, restarts quietly, then gives up after four restarts in three minutes', () => {
    const t = new CrashTracker();
    assert.equal(t.stopped(0), 'restart-and-tell');
    assert.equal(t.stopped(1000), 'restart');
    assert.equal(t.stopped(2000), 'restart');
    assert.equal(t.stopped(3000), 'restart');
    assert.equal(t.stopped(4000), 'give-up');
    assert.match(gaveUpMessage(t.count, t.windowMs), /stopped 5 times in 3 minutes and is not restarted/);
  });
  it('forgets stops older than the window', () => {
    const t = new CrashTracker(1, 1000);
    assert.equal(t.stopped(0), 'restart-and-tell');
    assert.equal(t.stopped(5000), 'restart');
    assert.equal(t.stopped(5500), 'give-up');
  });
  it('starts afresh after reset', () => {
    const t = new CrashTracker(1, 1000);
    t.stopped(0);
    assert.equal(t.stopped(10), 'give-up');
    t.reset();
    assert.equal(t.stopped(20), 'restart-and-tell');
  });
});

describe('status of a restarting or outdated server', () => {
  it('says restarting, and outdated with a warning', () => {
    const p = new ProgressTracker();
    assert.equal(statusText('restarting', p), '$(sync~spin) Anchorage: restarting');
    assert.equal(statusLabel('restarting', p), 'Anchorage language server: restarting');
    assert.equal(statusText('outdated', p), '$(warning) Anchorage: update the server');
    assert.equal(statusLabel('outdated', p), 'Anchorage language server: update the server');
    assert.match(statusTooltip('outdated', p, undefined, 'it has no anchorage.stats command'), /older than this extension: it has no anchorage\.stats command/);
  });
});
