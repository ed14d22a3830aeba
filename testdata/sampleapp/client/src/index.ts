/**
 * Entry point of the users client: wires the API client to its cache and
 * exposes the operations the UI needs.
 */
import { ApiClient, ApiError } from './api';
import type { User, UserId } from './api';
import { MemoryStore } from './cache';
import assert = require('assert');

export { LruCache, Store } from './cache';
export type { HttpClient } from './api';

const DEFAULT_BASE_URL = 'http://localhost:8080';

let client: ApiClient | undefined;

/** Ids of the users the current session marked as favorites. */
const favorites = new MemoryStore<UserId, boolean>();

/** Returns the shared client, creating it on first use. */
export function getClient(baseUrl: string = DEFAULT_BASE_URL): ApiClient {
  if (client === undefined) {
    client = new ApiClient(baseUrl);
  }
  return client;
}

/** Loads a user and returns their display name, or undefined if absent. */
export async function displayName(id: UserId): Promise<string | undefined> {
  try {
    const user = await getClient().getUser(id);
    return user.Name;
  } catch (err) {
    if (err instanceof ApiError && err.isNotFound()) {
      return undefined;
    }
    throw err;
  }
}

/** Renames a user after checking the new name. */
export const renameUser = async (id: UserId, name: string): Promise<User> => {
  assert.ok(name.length <= 64, 'name too long');
  return getClient().renameUser(id, name);
};

/** Formats a user for log lines. */
export const formatUser = function (user: User): string {
  return `${user.Name} <${user.Email}>`;
};

/** Loads users one by one, skipping those that no longer exist. */
export async function* loadUsers(ids: readonly UserId[]): AsyncGenerator<User> {
  for (const id of ids) {
    try {
      yield await getClient().getUser(id);
    } catch (err) {
      if (!(err instanceof ApiError) || !err.isNotFound()) {
        throw err;
      }
    }
  }
}

/** Yields the ids marked as favorites, in no particular order. */
function* favoriteIds(ids: Iterable<UserId>): Generator<UserId> {
  for (const id of ids) {
    if (favorites.get(id)) {
      yield id;
    }
  }
}

/** Marks or unmarks a user as favorite. */
export function toggleFavorite(id: UserId): boolean {
  const next = !favorites.get(id);
  favorites.set(id, next);
  return next;
}

/** Loads the favorite users among ids. */
export async function loadFavorites(ids: UserId[]): Promise<User[]> {
  const users: User[] = [];
  for await (const user of loadUsers([...favoriteIds(ids)])) {
    users.push(user);
  }
  return users;
}
