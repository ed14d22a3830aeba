import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import {
  answerToEntries,
  buildGraphArgs,
  cursorSymbolFromItem,
  emptyMessage,
  focusDefinitions,
  graphTitle,
  isSeparator,
} from '../../src/lib/graph';
import { PickItem } from '../../src/lib/search';
import { GraphAnswer } from '../../src/lib/types';
import { fixture, olderServer } from './helpers';

const items = (entries: ReturnType<typeof answerToEntries>) => entries.filter((e): e is PickItem => !isSeparator(e));

describe('cursorSymbolFromItem', () => {
  it('takes the qualified name and 1-based definition line from the server item', () => {
    const prepared = fixture<unknown[]>('prepareCallHierarchy.json');
    assert.deepEqual(cursorSymbolFromItem(prepared[0] as never), {
      symbol: 'UserRepository.FindByID',
      path: 'users/repo.go',
      line: 25,
    });
  });
  it('falls back to detail, then name', () => {
    assert.deepEqual(cursorSymbolFromItem({ name: 'Find', detail: 'Repo.Find' }), { symbol: 'Repo.Find' });
    assert.deepEqual(cursorSymbolFromItem({ name: 'Find' }), { symbol: 'Find' });
    assert.equal(cursorSymbolFromItem({}), undefined);
    assert.equal(cursorSymbolFromItem(undefined), undefined);
    assert.equal(cursorSymbolFromItem(null), undefined);
  });
});

describe('buildGraphArgs', () => {
  it('sends the symbol, and the depth only when positive', () => {
    assert.deepEqual(buildGraphArgs(' Repo.Find '), [{ symbol: 'Repo.Find' }]);
    assert.deepEqual(buildGraphArgs('Repo.Find', 0), [{ symbol: 'Repo.Find' }]);
    assert.deepEqual(buildGraphArgs('Repo.Find', 3), [{ symbol: 'Repo.Find', depth: 3 }]);
  });
});

describe('answerToEntries', () => {
  it('maps callers to the call sites', () => {
    const entries = answerToEntries('callers', fixture<GraphAnswer>('callers.json'));
    assert.equal(entries.filter(isSeparator).length, 0);
    const [first] = items(entries);
    assert.equal(first.label, '$(symbol-method) Service.GetUser');
    assert.equal(first.description, 'users/service.go:25');
    assert.equal(first.detail, 'calls repo.FindByID');
    assert.deepEqual(first.target, { file: 'users/service.go', line: 25, column: 16 });
  });

  it('maps callees to their definitions', () => {
    const list = items(answerToEntries('callees', fixture<GraphAnswer>('callees.json')));
    assert.ok(list.length >= 1);
    const q = list.find((i) => i.label.includes('Conn.QueryRow'))!;
    assert.equal(q.description, 'internal/db/db.go:29');
    assert.match(q.detail!, /^called as conn\.QueryRow at users\/repo\.go:27/);
    assert.deepEqual(q.target, { file: 'internal/db/db.go', line: 29, column: 1 });
  });

  it('maps callees defined outside the workspace to the call site', () => {
    const answer: GraphAnswer = {
      symbol: 'f',
      operation: 'callees',
      definitions: [
        {
          definition: { kind: 'function', name: 'f', qualified_name: 'f', path: 'a.go', line: 1 },
          result: [{ caller: { kind: 'function', name: 'f', qualified_name: 'f', path: 'a.go', line: 1 }, name: 'Println', qualifier: 'fmt', path: 'a.go', line: 2, column: 5 }],
        },
      ],
    };
    const [item] = items(answerToEntries('callees', answer));
    assert.equal(item.label, '$(symbol-misc) fmt.Println');
    assert.equal(item.detail, 'defined outside the workspace');
    assert.deepEqual(item.target, { file: 'a.go', line: 2, column: 5 });
  });

  it('maps the blast radius with depth and the edge line', () => {
    const list = items(answerToEntries('blastRadius', fixture<GraphAnswer>('blastRadius.json')));
    assert.ok(list.length >= 2);
    assert.equal(list[0].label, '$(symbol-method) Service.GetUser');
    assert.equal(list[0].description, 'users/service.go:25 · depth 1');
    assert.equal(list[0].detail, 'calls UserRepository.FindByID');
    assert.ok(list.some((i) => i.description!.endsWith('depth 2')));
  });

  it('labels each definition with a separator when there are several', () => {
    const one = fixture<GraphAnswer>('callers.json');
    const def = one.definitions![0];
    const two: GraphAnswer = {
      ...one,
      definitions: [def, { definition: { ...def.definition, path: 'other/repo.go', line: 3 }, result: def.result }],
    };
    const entries = answerToEntries('callers', two);
    const seps = entries.filter(isSeparator).map((s) => s.separator);
    assert.deepEqual(seps, ['UserRepository.FindByID — users/repo.go:25', 'UserRepository.FindByID — other/repo.go:3']);
    assert.equal(entries.length, 4);
    // Focused on the cursor's definition, only that one is left.
    const focused = answerToEntries('callers', two, { symbol: 'UserRepository.FindByID', path: 'other/repo.go', line: 3 });
    assert.equal(focused.filter(isSeparator).length, 0);
    assert.equal(focused.length, 1);
  });

  it('keeps every definition when the focus matches none', () => {
    const defs = fixture<GraphAnswer>('callers.json').definitions!;
    assert.equal(focusDefinitions(defs, { symbol: 'x', path: 'nowhere.go', line: 1 }).length, 1);
    assert.equal(focusDefinitions(defs, { symbol: 'x' }).length, 1);
  });

  it('is empty for empty or null answers', () => {
    assert.deepEqual(answerToEntries('callers', { symbol: 's', operation: 'callers', definitions: [] }), []);
    assert.deepEqual(answerToEntries('callers', olderServer<GraphAnswer>({ symbol: 's', operation: 'callers', definitions: null })), []);
    const empty = fixture<GraphAnswer>('callers.json');
    empty.definitions![0].result = [];
    assert.deepEqual(answerToEntries('callers', empty), []);
  });
});

describe('titles', () => {
  it('name the operation and the symbol', () => {
    assert.equal(graphTitle('callers', 'Repo.Find', 3), 'Callers of Repo.Find (3)');
    assert.equal(graphTitle('blastRadius', 'Repo.Find', 1), 'Blast radius of Repo.Find (1)');
    assert.equal(emptyMessage('callees', 'main'), 'No calls found in main.');
  });
});
