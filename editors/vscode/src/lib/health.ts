// What the extension makes of a server that stops or is older than it.
import { Commands } from './commands.gen';
import { INSTALL_COMMAND } from './server';

/**
 * The commands the extension calls without the user asking (the status
 * item, the Memories view, the proposal count). A server that does not
 * offer one of them is older than the extension: it is told once, and
 * the features that need them stay quiet instead of failing each time.
 */
export const REQUIRED_COMMANDS: readonly string[] = [Commands.indexStatus, Commands.memoryList, Commands.stats];

/** The required commands a server does not offer in its executeCommandProvider. */
export function missingCommands(offered: readonly string[] | undefined): string[] {
  const have = new Set(offered ?? []);
  return REQUIRED_COMMANDS.filter((c) => !have.has(c));
}

/** The one message shown for a server older than the extension. */
export function outdatedMessage(command: string, version: string | undefined, missing: readonly string[]): string {
  const v = version && version.trim() !== '' ? ` (version ${version.trim()})` : '';
  return (
    `Anchorage: the language server ${command}${v} is older than this extension: it has no ${missing.join(', ')} ` +
    `command${missing.length === 1 ? '' : 's'}. Search, callers and outlines work; the rules and their features do not. ` +
    `Update it with "${INSTALL_COMMAND}".`
  );
}

/** What to do after the server's connection closed without being asked to. */
export type CrashAction =
  /** Restart it and tell the user once. */
  | 'restart-and-tell'
  /** Restart it quietly: the user was told of an earlier stop. */
  | 'restart'
  /** Do not restart it: it stopped too often; tell the user. */
  | 'give-up';

/**
 * Counts the server's unexpected stops: it is restarted up to maxRestarts
 * times within windowMs; the first stop of a session is told, later ones
 * only show in the status item, and the stop that exceeds the limit
 * gives up (one more message, with a way to restart).
 */
export class CrashTracker {
  private stops: number[] = [];
  private told = false;

  constructor(
    readonly maxRestarts = 4,
    readonly windowMs = 3 * 60 * 1000,
  ) {}

  /** Records a stop at now (ms) and says what to do. */
  stopped(now: number): CrashAction {
    this.stops = this.stops.filter((t) => now - t <= this.windowMs);
    this.stops.push(now);
    if (this.stops.length > this.maxRestarts) {
      return 'give-up';
    }
    if (!this.told) {
      this.told = true;
      return 'restart-and-tell';
    }
    return 'restart';
  }

  /** Forgets the stops: the user restarted the server. */
  reset(): void {
    this.stops = [];
    this.told = false;
  }

  /** The stops within the window. */
  get count(): number {
    return this.stops.length;
  }
}

/** The message of a stop the server is restarted after. */
export function restartedMessage(): string {
  return 'Anchorage: the language server stopped unexpectedly and was restarted. Its log is in the Anchorage output.';
}

/** The message of the stop after which the server is not restarted. */
export function gaveUpMessage(stops: number, windowMs: number): string {
  return `Anchorage: the language server stopped ${stops} times in ${Math.round(windowMs / 60000)} minutes and is not restarted. Its log is in the Anchorage output.`;
}
