import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { candidateRoots, folderOf, isSafeRelative, joinRoot, resolveFile } from '../../src/lib/paths';

const P = path.posix;
const existing = (files: string[]) => async (abs: string) => files.includes(abs);

describe('joinRoot', () => {
  it('joins root-relative slash paths', () => {
    assert.equal(joinRoot('/ws/app', 'users/repo.go', P), '/ws/app/users/repo.go');
    assert.equal(joinRoot('/ws/app', './users//repo.go', P), '/ws/app/users/repo.go');
    assert.equal(joinRoot('C:\\ws', 'users/repo.go', path.win32), 'C:\\ws\\users\\repo.go');
  });
});

describe('isSafeRelative', () => {
  it('refuses absolute paths and escapes', () => {
    assert.equal(isSafeRelative('users/repo.go'), true);
    assert.equal(isSafeRelative('a..b/c'), true);
    assert.equal(isSafeRelative('../etc/passwd'), false);
    assert.equal(isSafeRelative('a/../../b'), false);
    assert.equal(isSafeRelative('/etc/passwd'), false);
    assert.equal(isSafeRelative('C:/x'), false);
    assert.equal(isSafeRelative('a\\b'), false);
    assert.equal(isSafeRelative(''), false);
  });
});

describe('candidateRoots', () => {
  it('puts the named root, then preferred, then the rest, once each', () => {
    assert.deepEqual(candidateRoots(['/a', '/b', '/c'], ['/b'], '/x'), ['/x', '/b', '/a', '/c']);
    assert.deepEqual(candidateRoots(['/a', '/b'], ['/a', '/a']), ['/a', '/b']);
    assert.deepEqual(candidateRoots([], []), []);
  });
});

describe('resolveFile', () => {
  it('uses the only root without touching the disk', async () => {
    let calls = 0;
    const abs = await resolveFile('users/repo.go', ['/ws/app'], async () => {
      calls++;
      return false;
    }, P);
    assert.equal(abs, '/ws/app/users/repo.go');
    assert.equal(calls, 0);
  });
  it('picks the first root where the file exists', async () => {
    const roots = ['/ws/web', '/ws/api'];
    assert.equal(await resolveFile('main.go', roots, existing(['/ws/api/main.go']), P), '/ws/api/main.go');
    assert.equal(await resolveFile('main.go', roots, existing(['/ws/web/main.go', '/ws/api/main.go']), P), '/ws/web/main.go');
  });
  it('falls back to the first root when the file is nowhere', async () => {
    assert.equal(await resolveFile('gone.go', ['/ws/web', '/ws/api'], existing([]), P), '/ws/web/gone.go');
  });
  it('refuses escapes and having no root', async () => {
    assert.equal(await resolveFile('../x.go', ['/ws/app'], existing([]), P), undefined);
    assert.equal(await resolveFile('x.go', [], existing([]), P), undefined);
  });
});

describe('folderOf', () => {
  it('finds the innermost folder holding a file', () => {
    const folders = ['/ws', '/ws/nested', '/other'];
    assert.equal(folderOf('/ws/nested/a.go', folders, P), '/ws/nested');
    assert.equal(folderOf('/ws/a.go', folders, P), '/ws');
    assert.equal(folderOf('/ws', folders, P), '/ws');
    assert.equal(folderOf('/wsx/a.go', folders, P), undefined);
    assert.equal(folderOf('/elsewhere/a.go', folders, P), undefined);
  });
});
