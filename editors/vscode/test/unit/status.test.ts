import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import { errorMessage, isCancellation, isUnknownCommand } from '../../src/lib/errors';
import { ProgressTracker, statusLabel, statusText, statusTooltip } from '../../src/lib/status';
import { IndexStatus } from '../../src/lib/types';
import { fixture, folderStatus } from './helpers';

describe('ProgressTracker and statusText', () => {
  it('follows begin, report and end of the server indexing', () => {
    const t = new ProgressTracker();
    assert.equal(statusText('running', t), '⚓ Anchorage');
    assert.equal(t.update('anchorage-1', { kind: 'begin', title: 'Indexing sampleapp', cancellable: true }), true);
    assert.equal(statusText('running', t), '$(sync~spin) Anchorage: indexing');
    t.update('anchorage-1', { kind: 'report', message: '7/22 files', percentage: 31 });
    assert.equal(statusText('running', t), '$(sync~spin) Anchorage: indexing 31%');
    assert.match(statusTooltip('running', t), /Indexing sampleapp 31% — 7\/22 files/);
    t.update('anchorage-1', { kind: 'report', percentage: 42 });
    assert.equal(statusText('running', t), '$(sync~spin) Anchorage: indexing 42%');
    assert.equal(t.update('anchorage-1', { kind: 'end', message: '22 files, 202 symbols' }), true);
    assert.equal(t.busy, false);
    assert.equal(statusText('running', t), '⚓ Anchorage');
    assert.equal(t.lastFinished, 'Indexing sampleapp: 22 files, 202 symbols');
  });
  it('labels the item for screen readers without icons', () => {
    const t = new ProgressTracker();
    assert.equal(statusLabel('running', t), 'Anchorage language server: ready');
    t.update('x', { kind: 'begin', title: 'Indexing app', percentage: 42 });
    assert.equal(statusLabel('running', t), 'Anchorage language server: indexing 42%');
    assert.equal(statusLabel('missing', new ProgressTracker()), 'Anchorage language server: not installed');
  });
  it('ignores reports for unknown tokens', () => {
    const t = new ProgressTracker();
    assert.equal(t.update(5, { kind: 'report', percentage: 5 }), false);
    assert.equal(t.update(5, { kind: 'end' }), false);
    assert.equal(t.busy, false);
  });
  it('reads the re-index title of the server', () => {
    const t = new ProgressTracker();
    t.update('r', { kind: 'begin', title: 'Anchorage: re-indexing sampleapp', percentage: 0 });
    t.update('r', { kind: 'report', percentage: 40 });
    assert.equal(statusText('running', t), '$(sync~spin) Anchorage: re-indexing 40%');
  });
  it('names re-indexing and counts parallel work', () => {
    const t = new ProgressTracker();
    t.update('a', { kind: 'begin', title: 'Re-indexing web', percentage: 10 });
    t.update(2, { kind: 'begin', title: 'Indexing api' });
    assert.equal(statusText('running', t), '$(sync~spin) Anchorage: re-indexing 10% (+1)');
  });
  it('shows the server state when it is not running', () => {
    const t = new ProgressTracker();
    assert.equal(statusText('missing', t), '$(error) Anchorage: not installed');
    assert.equal(statusText('starting', t), '$(sync~spin) Anchorage: starting');
    assert.equal(statusText('stopped', t), '$(circle-slash) Anchorage');
    assert.match(statusTooltip('failed', t, undefined, 'spawn EACCES'), /failed: spawn EACCES/);
  });
});

describe('statusTooltip', () => {
  it('shows each folder of anchorage.index.status', () => {
    const status = fixture<IndexStatus>('index.status.json');
    const tip = statusTooltip('running', new ProgressTracker(), status);
    assert.match(tip, /^Index:\n/);
    assert.match(tip, /22 files, 202 symbols, 655 edges/);
    assert.match(tip, /go 6, java 5, python 4/);
  });
  it('shows a folder being indexed', () => {
    const tip = statusTooltip('running', new ProgressTracker(), { folders: [folderStatus({ root: '/w', indexing: true, done: 3, total: 9 })] });
    assert.match(tip, /indexing: 3\/9 files/);
  });
});

describe('errors', () => {
  it('recognizes unknown commands and cancellations', () => {
    assert.equal(isUnknownCommand({ code: -32602, message: 'unknown command "anchorage.reindex"' }), true);
    assert.equal(isUnknownCommand(new Error('no symbol named "x"')), false);
    assert.equal(isCancellation({ code: -32800, message: 'Request cancelled' }), true);
    assert.equal(isCancellation(new Error('boom')), false);
    assert.equal(errorMessage('plain'), 'plain');
    assert.equal(errorMessage({ message: 42 }), '42');
  });
});
