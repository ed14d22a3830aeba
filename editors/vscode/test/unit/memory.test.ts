import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import {
  approvalSummary,
  approvalsMessage,
  ApprovalView,
  buildApproveArgs,
  buildCorrectionArgs,
  buildInjectArgs,
  buildSlotArgs,
  formerName,
  correctionFromSelection,
  correctionMessage,
  CorrectionResult,
  DEFAULT_INJECT_BUDGET,
  groupRulesByScope,
  Injection,
  listPendingProposals,
  MEMORY_COMMANDS,
  mergeProposals,
  proposalFromData,
  injectionSummary,
  MAX_CORRECTION_BYTES,
  pendingFromStats,
  pendingProposals,
  PendingProposals,
  pendingSuffix,
  Proposal,
  proposalIdOf,
  proposalItems,
  ruleMemoryId,
  ruleTreeItem,
  RuleView,
  scopeChoices,
  serverScopeChoices,
  scopeLabel,
  shorten,
  slotActions,
  slotItems,
  SlotsStatus,
} from '../../src/lib/memory';
import { ProgressTracker, statusLabel, statusText, statusTooltip } from '../../src/lib/status';
import { fixture, olderServer } from './helpers';

// Fixtures captured from a real `anchorage serve` (test/capture-fixtures.mjs).
const proposed = fixture<{ proposals: Proposal[] }>('memory.propose.json');
const proposed2 = fixture<{ proposals: Proposal[] }>('memory.propose2.json');
const approved = fixture<ApprovalView>('memory.approve.json');
const listed = fixture<{ rules: RuleView[] }>('memory.list.json');
const injected = fixture<Injection>('context.inject.json');
const recorded = fixture<CorrectionResult>('memory.recordCorrection.json');
// anchorage.memory.proposals after the CLI proposed too, and the server's
// error for a command it does not know (an older server's for that one).
const listedProposals = fixture<{ proposals: Proposal[] }>('memory.proposals.json');
const unknownCommand = fixture<{ code: number; message: string }>('unknownCommand.json');

const rule = (over: Partial<RuleView>): RuleView => ({
  id: 1,
  category: 'rule',
  scope: 'universal',
  content: 'Use errors.Is',
  rationale: '',
  source_variants: [],
  confidence: 0.9,
  priority: 1,
  corrections: 3,
  created_at: '2026-11-21T10:00:00Z',
  updated_at: '2026-11-21T10:00:00Z',
  anchor_status: 'none',
  ...over,
});

const proposal = (over: Partial<Proposal>): Proposal => ({
  id: 1,
  status: 'pending',
  category: 'rule',
  scope: 'project:app',
  content: 'Wrap errors',
  frequency: 3,
  confidence: 0.9,
  ...over,
});

describe('pendingProposals and proposalItems', () => {
  it('reads the pending proposals of a real propose answer', () => {
    const ps = pendingProposals(proposed);
    assert.equal(ps.length, 1);
    assert.equal(ps[0].content, 'Wrap errors with context using fmt.Errorf and %w');
    const [item] = proposalItems(ps);
    assert.equal(item.label, 'Wrap errors with context using fmt.Errorf and %w');
    assert.equal(item.description, 'project:sampleapp · 3 corrections');
    assert.match(item.detail, /^confidence 0\.93 · example db\.Open — You made this correction 3 times/);
    assert.equal(item.picked, true);
  });
  it('orders by priority, drops decided ones and survives a null answer', () => {
    const ps = pendingProposals({
      proposals: [proposal({ id: 5, priority: 2 }), proposal({ id: 6, priority: 1 }), proposal({ id: 7, status: 'approved' })],
    });
    assert.deepEqual(
      ps.map((p) => p.id),
      [6, 5],
    );
    assert.deepEqual(pendingProposals(null), []);
    assert.deepEqual(pendingProposals({ proposals: null }), []);
  });
  it('does not pick a proposal that contradicts a rule, and says why', () => {
    const [item] = proposalItems([proposal({ contradicts: 4, conflict: 'contradicts rule 4 "Never wrap errors"', file: 'a.go' })]);
    assert.equal(item.picked, false);
    assert.match(item.detail, /from a\.go — contradicts rule 4/);
    assert.equal(item.description, 'project:app · 3 corrections');
    assert.equal(proposalItems([proposal({ frequency: 1 })])[0].description, 'project:app · 1 correction');
    assert.equal(proposalItems([proposal({ contradicts_proposal: 5, conflict: 'contradicts pending proposal 5' })])[0].picked, false);
  });
  it('reads the second proposal with its example', () => {
    const [p] = pendingProposals(proposed2);
    assert.equal(p.id, 2);
    assert.equal(p.example_file, 'api/handlers.go');
    assert.ok(p.location?.uri.endsWith('/api/handlers.go'));
  });
});

describe('listPendingProposals', () => {
  /** An execute that answers anchorage.memory.proposals (or fails with err), and the calls it saw. */
  const server = (answer: unknown, err?: unknown) => {
    const calls: [string, unknown[]][] = [];
    const execute = async (command: string, args: unknown[]) => {
      calls.push([command, args]);
      if (err) {
        throw err;
      }
      return answer;
    };
    return { calls, execute };
  };
  const hint = proposal({ id: 9, content: 'from a hint', confidence: 0 });

  it('lists every pending proposal of the server, also those of another session, without the hints', async () => {
    const s = server(listedProposals);
    let hintsRead = 0;
    const ps = await listPendingProposals(s.execute, proposed2, () => {
      hintsRead++;
      return [hint];
    });
    assert.deepEqual(s.calls, [[MEMORY_COMMANDS.proposals, []]]);
    assert.equal(hintsRead, 0);
    assert.deepEqual(
      ps.map((p) => [p.id, p.content]),
      [
        [3, 'Use the logging module instead of print in workers'],
        [2, 'Always log HTTP requests with their duration'],
      ],
    );
    // The CLI's proposal comes whole: its strength, language and example.
    const cli = ps[0];
    assert.ok(cli.confidence > 0);
    assert.equal(cli.language, 'python');
    assert.ok(cli.location?.uri.startsWith('file:///work/sampleapp/'));
    const [item] = proposalItems(ps);
    assert.match(item.detail, /^confidence 0\.92 · /);
    assert.deepEqual(
      scopeChoices(ps).map((c) => c.scope),
      [undefined, 'universal', 'language'],
    );
  });
  it('survives an empty or null answer', async () => {
    assert.deepEqual(await listPendingProposals(server({ proposals: [] }).execute, proposed2, () => [hint]), []);
    assert.deepEqual(await listPendingProposals(server({ proposals: null }).execute, proposed2, () => [hint]), []);
    assert.deepEqual(await listPendingProposals(server(null).execute, proposed2, () => [hint]), []);
  });
  it("falls back to the propose answer and the hints when the server does not know the command", async () => {
    assert.match(unknownCommand.message, /unknown command/);
    const ps = await listPendingProposals(server(undefined, unknownCommand).execute, proposed2, () => [proposal({ id: 2, content: 'dup' }), hint]);
    assert.deepEqual(
      ps.map((p) => [p.id, p.content]),
      [
        [2, 'Always log HTTP requests with their duration'],
        [9, 'from a hint'],
      ],
    );
  });
  it('throws any other error', async () => {
    const err = { code: -32603, message: 'anchorage.memory.proposals: memory store: database is locked' };
    await assert.rejects(
      listPendingProposals(server(undefined, err).execute, proposed2, () => [hint]),
      (e) => e === err,
    );
  });
});

describe('proposals from diagnostic data', () => {
  it('reads the proposal the server puts in the data, not the message', () => {
    const p = proposalFromData({
      proposal: 2,
      content: 'Always log HTTP requests with their duration',
      scope: 'project:sampleapp',
      category: 'rule',
      frequency: 3,
      language: 'go',
      project: 'sampleapp',
      file: 'api/handlers.go',
    });
    assert.deepEqual(p, {
      id: 2,
      status: 'pending',
      category: 'rule',
      scope: 'project:sampleapp',
      content: 'Always log HTTP requests with their duration',
      frequency: 3,
      confidence: 0,
      language: 'go',
      project: 'sampleapp',
      file: 'api/handlers.go',
    });
    assert.equal(proposalItems([p!])[0].detail, 'from another session · from api/handlers.go');
  });
  it('keeps the conflict and needs an id, a text and a scope', () => {
    const p = proposalFromData({ proposal: 5, content: 'Use errors.Is (not ==)', scope: 'language:go', frequency: 1, conflict: 'contradicts rule 4' });
    assert.equal(p?.conflict, 'contradicts rule 4');
    assert.equal(p?.category, 'rule');
    // An older server's data: the id only.
    assert.equal(proposalFromData({ proposal: 5 }), undefined);
    assert.equal(proposalFromData({ proposal: 0, content: 'x', scope: 'universal' }), undefined);
    assert.equal(proposalFromData({ proposal: '5', content: 'x', scope: 'universal' }), undefined);
    assert.equal(proposalFromData(null), undefined);
    assert.equal(proposalFromData('Proposed rule: x (universal, from 3 corrections)'), undefined);
  });
  it('merges them after the proposed ones, once each', () => {
    const merged = mergeProposals([proposal({ id: 3 }), proposal({ id: 1 })], [proposal({ id: 1, content: 'dup' }), proposal({ id: 2 })]);
    assert.deepEqual(
      merged.map((p) => [p.id, p.content]),
      [
        [3, 'Wrap errors'],
        [1, 'Wrap errors'],
        [2, 'Wrap errors'],
      ],
    );
  });
});

describe('scopeChoices and buildApproveArgs', () => {
  it('offers as proposed, universal, language and project', () => {
    const choices = scopeChoices(pendingProposals(proposed));
    assert.deepEqual(
      choices.map((c) => [c.label, c.description, c.scope]),
      [
        ['As proposed', 'project:sampleapp', undefined],
        ['Universal', 'every project and language', 'universal'],
        ['Language', 'language:go', 'language'],
      ],
    );
  });
  it('offers project for language rules and leaves out what all have', () => {
    const choices = scopeChoices([proposal({ scope: 'language:go', language: 'go', project: 'app' })]);
    assert.deepEqual(
      choices.map((c) => c.scope),
      [undefined, 'universal', 'project'],
    );
    assert.deepEqual(
      scopeChoices([proposal({ scope: 'universal' })]).map((c) => c.scope),
      [undefined],
    );
  });
  it('lists mixed scopes and leaves out a kind some proposals lack', () => {
    const choices = scopeChoices([
      proposal({ id: 1, scope: 'language:go', language: 'go' }),
      proposal({ id: 2, scope: 'universal', language: 'python', project: 'app' }),
    ]);
    assert.equal(choices[0].description, 'language:go, universal');
    assert.deepEqual(
      choices.map((c) => c.scope),
      [undefined, 'universal', 'language'],
    );
  });
  it('takes the choices from the server, and falls back to its own for an older server', async () => {
    const calls: [string, unknown[]][] = [];
    const answer = {
      choices: [
        { label: 'As proposed', description: 'language:go', scope: '' },
        { label: 'Universal', description: 'every project and language', scope: 'universal' },
      ],
    };
    const selected = [proposal({ id: 4, scope: 'language:go', language: 'go', project: 'app' }), proposal({ id: 7 })];
    const fromServer = await serverScopeChoices(async (command, args) => {
      calls.push([command, args]);
      return answer;
    }, selected);
    assert.deepEqual(calls, [['anchorage.memory.scopeChoices', [{ ids: [4, 7] }]]]);
    assert.deepEqual(
      fromServer.map((c) => [c.label, c.scope]),
      [
        ['As proposed', undefined],
        ['Universal', 'universal'],
      ],
    );
    const older = await serverScopeChoices(async () => {
      throw unknownCommand;
    }, selected);
    assert.deepEqual(older, scopeChoices(selected));
    await assert.rejects(
      serverScopeChoices(async () => {
        throw new Error('memory database is locked');
      }, selected),
      /locked/,
    );
  });
  it('sends the scope only when chosen', () => {
    assert.deepEqual(buildApproveArgs(3), [{ id: 3 }]);
    assert.deepEqual(buildApproveArgs(3, 'universal'), [{ id: 3, scope: 'universal' }]);
  });
});

describe('approvalSummary', () => {
  it('names the rule and its example from a real approval', () => {
    assert.equal(
      approvalSummary(approved),
      'approved as rule 1 (project:sampleapp): Wrap errors with context using fmt.Errorf and %w — example db.Open (internal/db/db.go:17)',
    );
  });
  it("prefers the server's summary", () => {
    assert.equal(approvalSummary({ ...approved, summary: 'approved as rule 1 (universal): told by the server' }), 'approved as rule 1 (universal): told by the server');
  });
  it('names files relative to the workspace, also from a server without path', () => {
    const old = olderServer<ApprovalView>({ ...approved, location: { ...approved.location!, path: undefined } });
    const rel = (uri: string) => uri.replace(/^file:\/\/\/work\/sampleapp\//, '');
    assert.match(approvalSummary(old, rel), /example db\.Open \(internal\/db\/db\.go:17\)$/);
    // Without a way to make it relative, the whole path rather than a misleading tail.
    assert.match(approvalSummary(old), /example db\.Open \(\/work\/sampleapp\/internal\/db\/db\.go:17\)$/);
  });
  it('says what approving several rules did, with their text', () => {
    const second: ApprovalView = {
      ...approved,
      rule: { ...approved.rule, id: 3, content: 'Log every HTTP request with its duration' },
      location: null,
      anchor_status: 'none',
    };
    assert.equal(
      approvalsMessage([approved, second]),
      'approved 2 rules: “Wrap errors with context using fmt.Errorf and %w” (internal/db/db.go:17); “Log every HTTP request with its duration”',
    );
    assert.equal(approvalsMessage([approved]), approvalSummary(approved));
  });
  it('says why there is no example, a merge and what it replaced', () => {
    const v: ApprovalView = {
      ...approved,
      merged: true,
      location: null,
      anchor_status: 'none',
      anchor_note: 'no example found: nothing relevant',
      superseded: [4],
    };
    assert.equal(
      approvalSummary(v),
      'merged into rule 1 (project:sampleapp): Wrap errors with context using fmt.Errorf and %w — no example found: nothing relevant; replaces rule 4',
    );
  });
});

describe('proposalIdOf and PendingProposals', () => {
  it('reads the proposal of the server hint diagnostics only', () => {
    assert.equal(proposalIdOf({ source: 'anchorage', code: 'proposal', data: { proposal: 7 } }), 7);
    assert.equal(proposalIdOf({ source: 'anchorage', code: { value: 'proposal' }, data: { proposal: 2 } }), 2);
    assert.equal(proposalIdOf({ source: 'gopls', code: 'proposal', data: { proposal: 7 } }), undefined);
    assert.equal(proposalIdOf({ source: 'anchorage', code: 'other', data: { proposal: 7 } }), undefined);
    assert.equal(proposalIdOf({ source: 'anchorage', code: 'proposal', data: { proposal: '7' } }), undefined);
    assert.equal(proposalIdOf({ source: 'anchorage', code: 'proposal' }), undefined);
  });
  it('reads the count of a real anchorage.stats answer', () => {
    assert.equal(pendingFromStats(fixture('stats.json')), 1);
    assert.equal(pendingFromStats({ memory: null, graph: null }), 0);
    assert.equal(pendingFromStats({}), undefined);
    assert.equal(pendingFromStats(null), undefined);
    assert.equal(pendingFromStats({ memory: { proposals: { pending: -1 } } }), undefined);
  });
  it('prefers the server count to the ids seen', () => {
    const p = new PendingProposals();
    p.setDiagnostics([4]);
    assert.equal(p.setCounted(3), true);
    assert.equal(p.count, 3);
    assert.equal(p.setCounted(3), false);
    p.setCounted(undefined);
    assert.equal(p.count, 1);
  });
  it('counts proposals seen in diagnostics and in propose answers once', () => {
    const p = new PendingProposals();
    assert.equal(p.count, 0);
    assert.equal(p.setDiagnostics([1, 2, 2]), true);
    assert.equal(p.setDiagnostics([2, 1]), false);
    assert.equal(p.setProposed([2, 3]), true);
    assert.equal(p.count, 3);
    assert.equal(p.decided([2]), true);
    assert.equal(p.count, 2);
    assert.equal(p.decided([9]), false);
    p.setDiagnostics([]);
    assert.equal(p.count, 1);
  });
});

describe('corrections', () => {
  it('takes the text of a selected comment', () => {
    assert.equal(correctionFromSelection('  // Wrap errors with context\n  // using %w\n'), 'Wrap errors with context using %w');
    assert.equal(correctionFromSelection('/* Never panic\n * in library code */'), 'Never panic in library code');
    assert.equal(correctionFromSelection('# use pathlib, not os.path'), 'use pathlib, not os.path');
    assert.equal(correctionFromSelection('-- quote identifiers'), 'quote identifiers');
    assert.equal(correctionFromSelection('\n\n'), '');
  });
  it('builds the arguments with the place of a file document only', () => {
    const range = { start: { line: 1, character: 0 }, end: { line: 2, character: 4 } };
    assert.deepEqual(buildCorrectionArgs(' Wrap errors ', 'file:///w/a.go', range), {
      args: [{ text: 'Wrap errors', uri: 'file:///w/a.go', range }],
    });
    assert.deepEqual(buildCorrectionArgs('Wrap errors', 'untitled:Untitled-1', range), { args: [{ text: 'Wrap errors' }] });
    assert.deepEqual(buildCorrectionArgs('Wrap errors'), { args: [{ text: 'Wrap errors' }] });
  });
  it('refuses empty and too long text as the server would', () => {
    assert.deepEqual(buildCorrectionArgs(' \n\t'), { error: 'the correction is empty' });
    const long = buildCorrectionArgs('é'.repeat(MAX_CORRECTION_BYTES / 2 + 1));
    assert.ok('error' in long && /10242 bytes; the limit is 10240/.test(long.error));
    assert.ok('args' in buildCorrectionArgs('x'.repeat(MAX_CORRECTION_BYTES)));
  });
  it('reports a real recorded correction', () => {
    assert.equal(correctionMessage(recorded), 'recorded correction 3 (users/repo.go); 3 open corrections');
  });
});

describe('injection', () => {
  it('builds the arguments with a default budget', () => {
    assert.deepEqual(buildInjectArgs({}), [{ budget: DEFAULT_INJECT_BUDGET }]);
    assert.deepEqual(buildInjectArgs({ uri: 'file:///w/a.go', query: '  errors ', budget: 800.7 }), [
      { uri: 'file:///w/a.go', query: 'errors', budget: 800 },
    ]);
    assert.deepEqual(buildInjectArgs({ uri: 'untitled:1', budget: -5 }), [{ budget: DEFAULT_INJECT_BUDGET }]);
  });
  it('summarizes a real injection', () => {
    assert.match(injected.markdown, /^## Coding rules\n- Wrap errors with context/);
    assert.equal(injectionSummary(injected), 'copied 1 rule (147 of 400 tokens) for internal/db/db.go');
    assert.equal(
      injectionSummary({ ...injected, rules: [], dropped: 2, file: undefined }),
      'copied 0 rules (147 of 400 tokens); 2 left out for the budget',
    );
  });
});

describe('the Memories tree', () => {
  it('groups a real list: the anchored rule opens its example', () => {
    const groups = groupRulesByScope(listed.rules);
    assert.deepEqual(
      groups.map((g) => g.label),
      ['Project: sampleapp (1)'],
    );
    const item = ruleTreeItem(groups[0].rules[0]);
    assert.equal(item.label, 'Wrap errors with context using fmt.Errorf and %w');
    assert.equal(item.description, 'db.Open · internal/db/db.go:17');
    assert.equal(item.openable, true);
    assert.equal(item.icon, 'pinned');
    assert.match(item.tooltip, /project:sampleapp · rule · confidence 0\.93 · from 3 corrections\nWhy: You made this/);
  });
  it('orders universal, languages, projects and leaves out superseded rules', () => {
    const groups = groupRulesByScope([
      rule({ id: 1, scope: 'project:b' }),
      rule({ id: 2, scope: 'language:rust' }),
      rule({ id: 3, scope: 'universal' }),
      rule({ id: 4, scope: 'language:go' }),
      rule({ id: 5, scope: 'language:go', superseded_by: 9 }),
      rule({ id: 6, scope: 'language:go' }),
    ]);
    assert.deepEqual(
      groups.map((g) => [g.label, g.rules.map((r) => r.id)]),
      [
        ['Universal (1)', [3]],
        ['Language: go (2)', [4, 6]],
        ['Language: rust (1)', [2]],
        ['Project: b (1)', [1]],
      ],
    );
    assert.equal(scopeLabel('weird'), 'weird');
  });
  it('describes rules whose example cannot be opened', () => {
    const lost = ruleTreeItem(rule({ anchor_status: 'lost', anchor: { file: 'a.go', symbol: 'pkg.F', score: 0.8 } }));
    assert.deepEqual([lost.description, lost.icon, lost.openable], ['anchor lost: pkg.F', 'warning', false]);
    assert.equal(ruleTreeItem(rule({})).description, 'no example');
    assert.equal(ruleTreeItem(rule({ anchor_status: 'pending' })).description, 'example being indexed');
    assert.match(ruleTreeItem(rule({ anchor_status: 'elsewhere', anchor: { file: 'x.go', score: 1 } })).description, /another workspace \(x\.go\)/);
    assert.equal(ruleTreeItem(rule({ content: 'x'.repeat(150) })).label.length, 100);
  });
});

describe('status bar with pending proposals', () => {
  it('shows the pending proposals beside the state', () => {
    const t = new ProgressTracker();
    assert.equal(pendingSuffix(0), '');
    assert.equal(statusText('running', t, 3), '⚓ Anchorage · 3 proposals');
    assert.equal(statusText('running', t, 1), '⚓ Anchorage · 1 proposal');
    assert.equal(statusLabel('running', t, 3), 'Anchorage language server: ready · 3 proposals');
    assert.equal(statusLabel('running', t, 0), 'Anchorage language server: ready');
    t.update('x', { kind: 'begin', title: 'Indexing app', percentage: 42 });
    assert.equal(statusText('running', t, 2), '$(sync~spin) Anchorage: indexing 42% · 2 proposals');
    assert.equal(statusLabel('running', t, 2), 'Anchorage language server: indexing 42% · 2 proposals');
    assert.match(statusTooltip('running', new ProgressTracker(), undefined, undefined, 2), /^Memory: 2 proposals waiting for approval/);
  });
});

describe('working memory slots', () => {
  const status: SlotsStatus = {
    slots: [
      { slot: 'A', anchor: { id: 'rule:12', kind: 'rule', title: 'Use errors.Is to compare errors' }, summary: 'errors', pinned: true, hop_budget: 2, last_used: '2026-11-21T10:00:00Z' },
      { slot: 'B', anchor: { id: 'doc:docs/db.md', kind: 'document', title: 'Database notes' }, summary: '', pinned: false, hop_budget: 2, last_used: '' },
      { slot: 'C', anchor: null, summary: '', pinned: false, hop_budget: 2, last_used: '' },
    ],
  };
  it('lists each slot with what it holds', () => {
    const items = slotItems(status);
    assert.deepEqual(
      items.map((i) => [i.label, i.description, i.detail]),
      [
        ['$(pinned) A: Use errors.Is to compare errors', 'rule:12 · pinned · 2 hops · used 2026-11-21T10:00:00Z', 'errors'],
        ['$(circle-large-outline) B: Database notes', 'doc:docs/db.md · 2 hops', ''],
        ['$(circle-large-outline) C: (empty)', '2 hops', ''],
      ],
    );
    assert.deepEqual(slotItems(null), []);
    assert.deepEqual(slotItems(olderServer<SlotsStatus>({ slots: null })), []);
  });
  it('offers unpin, pin or set as the slot allows', () => {
    const [a, b, c] = status.slots!;
    assert.deepEqual(
      slotActions(a).map((x) => x.action),
      ['unpin', 'set'],
    );
    assert.deepEqual(
      slotActions(b).map((x) => x.action),
      ['pin', 'set'],
    );
    assert.deepEqual(
      slotActions(c).map((x) => x.action),
      ['set'],
    );
  });
  it('builds the anchors commands of the contract', () => {
    assert.deepEqual(buildSlotArgs('unpin', 'A'), { command: 'anchorage.slots.unpin', args: [{ slot: 'A' }] });
    assert.deepEqual(buildSlotArgs('pin', 'B', 'doc:docs/db.md'), { command: 'anchorage.slots.pin', args: [{ slot: 'B', id: 'doc:docs/db.md' }] });
    assert.deepEqual(buildSlotArgs('set', 'C', ruleMemoryId(12)), { command: 'anchorage.slots.set', args: [{ slot: 'C', id: 'rule:12' }] });
    // An older server knows the slots commands by their former names.
    assert.deepEqual(buildSlotArgs('pin', 'B', 'rule:3', true), { command: 'anchorage.anchors.pin', args: [{ slot: 'B', id: 'rule:3' }] });
    assert.equal(formerName('anchorage.slots.status'), 'anchorage.anchors.status');
    assert.equal(formerName('anchorage.memory.list'), undefined);
  });
});

describe('shorten', () => {
  it('keeps one line and cuts with an ellipsis', () => {
    assert.equal(shorten('a\n  b', 10), 'a b');
    assert.equal(shorten('abcdefghijk', 5), 'abcd…');
  });
});
