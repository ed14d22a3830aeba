/** The message of an error, a JSON-RPC error or anything thrown. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  if (typeof err === 'object' && err !== null && 'message' in err) {
    return String((err as { message: unknown }).message);
  }
  return String(err);
}

/** Whether an error from the server says it does not know a command. */
export function isUnknownCommand(err: unknown): boolean {
  return /unknown command/i.test(errorMessage(err));
}

/** Whether an error is a cancelled request (JSON-RPC -32800) or a cancellation. */
export function isCancellation(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === -32800 || /cancel/i.test(errorMessage(err));
}
