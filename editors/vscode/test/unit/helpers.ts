import * as fs from 'node:fs';
import * as path from 'node:path';

/** Reads a JSON fixture from test/unit/fixtures (tests run from out/test/unit). */
export function fixture<T>(name: string): T {
  const dir = path.resolve(__dirname, '..', '..', '..', 'test', 'unit', 'fixtures');
  return JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as T;
}
