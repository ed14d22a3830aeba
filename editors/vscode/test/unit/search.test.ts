import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import {
  buildSearchArgs,
  buildUsedArgs,
  kindIcon,
  searchResponseToItems,
  searchResultToItem,
  searchTitle,
  snippetLine,
  strategyBadge,
  strategyIcon,
} from '../../src/lib/search';
import { SearchResponse } from '../../src/lib/types';
import { fixture, olderServer, searchAnswer, searchResult } from './helpers';

describe('buildSearchArgs', () => {
  it('sends the trimmed query in one object', () => {
    assert.deepEqual(buildSearchArgs('  where are users loaded '), [{ query: 'where are users loaded' }]);
  });
  it('skips blank queries', () => {
    assert.equal(buildSearchArgs(''), undefined);
    assert.equal(buildSearchArgs(' \t\n'), undefined);
  });
  it('adds top_k when positive, as an integer', () => {
    assert.deepEqual(buildSearchArgs('x', { topK: 20 }), [{ query: 'x', top_k: 20 }]);
    assert.deepEqual(buildSearchArgs('x', { topK: 7.9 }), [{ query: 'x', top_k: 7 }]);
    assert.deepEqual(buildSearchArgs('x', { topK: 0 }), [{ query: 'x' }]);
    assert.deepEqual(buildSearchArgs('x', { topK: -3 }), [{ query: 'x' }]);
    assert.deepEqual(buildSearchArgs('x', { topK: Number.NaN }), [{ query: 'x' }]);
  });
  it('forces a strategy only when it is a known one', () => {
    assert.deepEqual(buildSearchArgs('x', { strategy: 'keyword' }), [{ query: 'x', strategy: 'keyword' }]);
    assert.deepEqual(buildSearchArgs('x', { strategy: 'auto' }), [{ query: 'x' }]);
    assert.deepEqual(buildSearchArgs('x', { strategy: 'bogus' }), [{ query: 'x' }]);
  });
});

describe('buildUsedArgs', () => {
  it('names the feedback id and the opened location', () => {
    assert.deepEqual(buildUsedArgs(17, { file: 'users/repo.go', line: 25 }), [{ id: 17, file: 'users/repo.go', line: 25 }]);
  });
});

describe('searchResultToItem', () => {
  const resp = fixture<SearchResponse>('search.json');

  it('maps a multi-strategy symbol hit with star, kind icon, location and doc line; opens at the name', () => {
    const item = searchResultToItem(resp.results![0], 'semantic');
    assert.equal(item.label, '★ $(symbol-method) UserRepository.FindByID');
    assert.equal(item.description, 'users/repo.go:25-32');
    assert.equal(item.detail, 'FindByID loads one user by its id.');
    assert.equal(item.alwaysShow, true);
    assert.deepEqual(item.target, { file: 'users/repo.go', line: 25, endLine: 32, root: undefined, nameLine: 25, column: 27 });
  });

  it('names the backend of each row only in a hybrid search', () => {
    assert.equal(searchResultToItem(resp.results![1], 'hybrid').description, 'users/service.go:20-26 · structural');
    assert.equal(searchResultToItem(resp.results![1], 'structural').description, 'users/service.go:20-26');
    assert.ok(searchResponseToItems(resp).every((i) => !/\[(semantic|structural|keyword|hybrid)\]/.test(i.description ?? '')));
  });

  it('falls back to the snippet from an older server, and opens at the line', () => {
    const item = searchResultToItem(resp.results![1]);
    assert.equal(item.label, '$(symbol-method) Service.GetUser');
    assert.equal(item.detail, 'func (s *Service) GetUser(ctx context.Context, id string) (*User, error) {');
    assert.deepEqual(item.target, { file: 'users/service.go', line: 20, endLine: 26, root: undefined });
  });

  it('names text hits by their file', () => {
    const item = searchResultToItem(resp.results![2]);
    assert.equal(item.label, '$(file-code) db.go');
    assert.equal(item.description, 'internal/db/db.go:30');
    assert.equal(item.detail, 'return c.db.QueryRowContext(ctx, query, args...)');
  });

  it('keeps the server order and always shows every item', () => {
    const items = searchResponseToItems(resp);
    assert.deepEqual(
      items.map((i) => i.target.file),
      ['users/repo.go', 'users/service.go', 'internal/db/db.go'],
    );
    assert.ok(items.every((i) => i.alwaysShow));
  });

  it('copes with null results and drops results without a file', () => {
    assert.deepEqual(searchResponseToItems(olderServer<SearchResponse>({ ...resp, results: null })), []);
    assert.equal(searchResponseToItems({ ...resp, results: [searchResult({ file: '', line: 1 }), resp.results[1]] }).length, 1);
  });
});

describe('searchTitle', () => {
  it('leaves out the time an older server did not send', () => {
    assert.equal(searchTitle(olderServer<SearchResponse>({ query: 'q', strategy: 'keyword', confidence: 1, reasoning: '', results: [] })), 'Anchorage: keyword 100% · 0 results');
  });
  it('says the strategy once, its confidence, the count and timing, on one short line', () => {
    const resp = fixture<SearchResponse>('search.json');
    assert.equal(searchTitle(resp), 'Anchorage: hybrid 72% · 3 results · 12 ms');
  });
  it('counts what was cut and shows the notice', () => {
    assert.equal(
      searchTitle(
        searchAnswer({ query: 'q', strategy: 'keyword', confidence: 0.9, reasoning: 'a quoted string', elapsed_ms: 4.4, total: 57, notice: 'query cut to 2000 characters', results: [searchResult({ file: 'a', line: 1 })] }),
      ),
      'Anchorage: keyword 90% · 1 of 57 results · 4 ms · query cut to 2000 characters',
    );
  });
  it('flags partial answers', () => {
    assert.equal(
      searchTitle(searchAnswer({ query: 'q', strategy: 'keyword', confidence: 1, elapsed_ms: 2, partial: true })),
      'Anchorage: keyword 100% · 0 results · 2 ms · partial',
    );
  });
});

describe('icons and snippets', () => {
  it('has an icon and a badge for every strategy, and a fallback', () => {
    for (const s of ['semantic', 'structural', 'keyword', 'hybrid']) {
      assert.notEqual(strategyIcon(s), 'search');
      assert.equal(strategyBadge(s), `[${s}]`);
    }
    assert.equal(strategyIcon(undefined), 'search');
    assert.equal(strategyBadge(''), '[search]');
  });
  it('maps symbol kinds to codicons', () => {
    assert.equal(kindIcon('function'), 'symbol-function');
    assert.equal(kindIcon('interface'), 'symbol-interface');
    assert.equal(kindIcon('nonsense'), 'file-code');
  });
  it('cuts long snippets to one line', () => {
    assert.equal(snippetLine(undefined), undefined);
    assert.equal(snippetLine('\n\n  '), undefined);
    assert.equal(snippetLine('a   b\tc\nd'), 'a b c');
    assert.equal(snippetLine('/**\n * Loads and stores users.\n */'), '* Loads and stores users.');
    assert.equal(snippetLine('  """\n  Fetch one user.\n'), 'Fetch one user.');
    assert.equal(snippetLine('/** Loads users. */'), '/** Loads users. */');
    const long = snippetLine('x'.repeat(500))!;
    assert.equal(long.length, 160);
    assert.ok(long.endsWith('…'));
  });
});
