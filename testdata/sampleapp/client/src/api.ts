// Client for the users API served by cmd/server (see api/handlers.go).
import { LruCache } from './cache';

/** Identifier of a user account, as issued by the Go service. */
export type UserId = string;

/** A user account, as encoded by GET /users/{id}. */
export interface User {
  ID: UserId;
  Email: string;
  Name: string;
  /** RFC 3339 timestamp. */
  CreatedAt: string;
}

/** HTTP statuses the client knows how to report. */
export enum RequestStatus {
  Ok = 200,
  NotFound = 404,
  ServerError = 500,
}

/** Minimal HTTP transport, so that tests can stub the network. */
export interface HttpClient {
  /** Base URL every path is resolved against. */
  readonly baseUrl: string;
  /** Sends a request and returns the decoded JSON body. */
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/** Raised when the API answers with a status other than 2xx. */
export class ApiError extends Error {
  constructor(
    readonly status: RequestStatus,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Reports whether the requested user does not exist. */
  isNotFound(): boolean {
    return this.status === RequestStatus.NotFound;
  }
}

/** Builds the path of one user resource. */
export function userPath(id: UserId): string {
  return `/users/${encodeURIComponent(id)}`;
}

/**
 * Fetch-based client for the users API. Users are cached, so repeated
 * lookups of the same id cost one request.
 */
export class ApiClient implements HttpClient {
  private readonly cache = new LruCache<UserId, User>(100);

  constructor(
    readonly baseUrl: string,
    private readonly fetchFn: typeof fetch = fetch,
  ) {}

  /** Sends a JSON request and decodes the JSON answer. */
  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.fetchFn(new URL(path, this.baseUrl).toString(), {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) {
      throw new ApiError(response.status, await response.text());
    }
    return (await response.json()) as T;
  }

  /** Loads a user, answering from the cache when possible. */
  async getUser(id: UserId): Promise<User> {
    const cached = this.cache.get(id);
    if (cached !== undefined) {
      return cached;
    }
    const user = await this.request<User>('GET', userPath(id));
    this.cache.set(id, user);
    return user;
  }

  /** Changes a user's display name and returns the updated user. */
  async renameUser(id: UserId, name: string): Promise<User> {
    const trimmed = name.trim();
    if (trimmed === '') {
      throw new Error('rename user: empty name');
    }
    const user = await this.request<User>('PATCH', userPath(id), { Name: trimmed });
    this.cache.set(id, user);
    return user;
  }
}
