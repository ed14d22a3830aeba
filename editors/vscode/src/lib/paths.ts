// Resolving the server's root-relative paths to files on disk.
import * as path from 'node:path';

/** Joins a root and a root-relative '/'-separated path. */
export function joinRoot(root: string, rel: string, p: typeof path = path): string {
  const parts = rel.split('/').filter((s) => s !== '' && s !== '.');
  return p.join(root, ...parts);
}

/** Whether a relative path stays inside its root (no '..' escapes, not absolute). */
export function isSafeRelative(rel: string): boolean {
  if (rel === '' || rel.startsWith('/') || /^[A-Za-z]:[\\/]/.test(rel) || rel.includes('\\')) {
    return false;
  }
  return !rel.split('/').includes('..');
}

/**
 * The folder roots to try for a path, in order: the root the server named
 * (when it is one of the workspace folders or no folders are known), then
 * the preferred folders, then the rest, without duplicates.
 */
export function candidateRoots(folders: readonly string[], preferred: readonly string[] = [], named?: string): string[] {
  const out: string[] = [];
  const add = (r: string | undefined) => {
    if (r && !out.includes(r)) {
      out.push(r);
    }
  };
  add(named);
  preferred.forEach(add);
  folders.forEach(add);
  return out;
}

/**
 * The absolute file of a root-relative path: with one candidate root, that
 * root; with several, the first where the file exists (the server indexes
 * the workspace folders and does not say which one a result came from),
 * else the first. Undefined for paths that escape their root or when there
 * is no root.
 */
export async function resolveFile(
  rel: string,
  roots: readonly string[],
  exists: (abs: string) => Promise<boolean>,
  p: typeof path = path,
): Promise<string | undefined> {
  if (!isSafeRelative(rel) || roots.length === 0) {
    return undefined;
  }
  if (roots.length === 1) {
    return joinRoot(roots[0], rel, p);
  }
  for (const root of roots) {
    const abs = joinRoot(root, rel, p);
    if (await exists(abs)) {
      return abs;
    }
  }
  return joinRoot(roots[0], rel, p);
}

/** The workspace folder holding a file (the innermost), or undefined. */
export function folderOf(file: string, folders: readonly string[], p: typeof path = path): string | undefined {
  let best: string | undefined;
  for (const f of folders) {
    const rel = p.relative(f, file);
    if (rel === '' || (!rel.startsWith('..') && !p.isAbsolute(rel))) {
      if (!best || f.length > best.length) {
        best = f;
      }
    }
  }
  return best;
}
