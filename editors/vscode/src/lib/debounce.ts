// Live search: debounce typing and keep only the latest request.

/** Cancellation handed to a running request. */
export interface Cancellation {
  readonly cancelled: boolean;
  /** Registers a callback run when the request is cancelled (at once if it already is). */
  onCancel(cb: () => void): void;
}

class CancelSource implements Cancellation {
  private done = false;
  private cbs: (() => void)[] = [];
  get cancelled(): boolean {
    return this.done;
  }
  onCancel(cb: () => void): void {
    if (this.done) {
      cb();
    } else {
      this.cbs.push(cb);
    }
  }
  cancel(): void {
    if (this.done) {
      return;
    }
    this.done = true;
    const cbs = this.cbs;
    this.cbs = [];
    for (const cb of cbs) {
      try {
        cb();
      } catch {
        // a failing cancel hook must not stop the others
      }
    }
  }
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface LatestOptions<Q, R> {
  /** Quiet time after the last input before a request starts. */
  delayMs: number;
  run: (input: Q, cancel: Cancellation) => Promise<R>;
  /** Called with the answer of the latest request only. */
  onResult: (result: R, input: Q) => void;
  /** Called with the failure of the latest request only. */
  onError?: (err: unknown, input: Q) => void;
  /** Called when a request starts (true) and when the latest one settles (false). */
  onBusy?: (busy: boolean) => void;
  timers?: Timers;
}

/**
 * Runs a request for the latest input after a quiet period: each new input
 * restarts the wait and cancels the request in flight, and answers of stale
 * requests are dropped even if they arrive.
 */
export class LatestRequest<Q, R> {
  private timer: unknown;
  private pending = false;
  private inflight?: CancelSource;
  private seq = 0;
  private disposed = false;
  private readonly timers: Timers;

  constructor(private readonly opts: LatestOptions<Q, R>) {
    this.timers = opts.timers ?? realTimers;
  }

  /** Schedules a request for input after the quiet period. */
  schedule(input: Q): void {
    this.schedulein(input, this.opts.delayMs);
  }

  /** Runs a request for input at once (e.g. for the initial value). */
  now(input: Q): void {
    this.schedulein(input, 0);
  }

  private schedulein(input: Q, delay: number): void {
    if (this.disposed) {
      return;
    }
    this.cancelPending();
    const seq = ++this.seq;
    const start = () => {
      this.pending = false;
      this.timer = undefined;
      void this.start(input, seq);
    };
    if (delay <= 0) {
      start();
      return;
    }
    this.pending = true;
    this.timer = this.timers.setTimeout(start, delay);
  }

  private async start(input: Q, seq: number): Promise<void> {
    const source = new CancelSource();
    this.inflight = source;
    this.opts.onBusy?.(true);
    try {
      const result = await this.opts.run(input, source);
      if (seq === this.seq && !source.cancelled && !this.disposed) {
        this.opts.onResult(result, input);
      }
    } catch (err) {
      if (seq === this.seq && !source.cancelled && !this.disposed) {
        this.opts.onError?.(err, input);
      }
    } finally {
      if (this.inflight === source) {
        this.inflight = undefined;
      }
      if (seq === this.seq && !this.pending && !this.disposed) {
        this.opts.onBusy?.(false);
      }
    }
  }

  /** Drops the scheduled request and cancels the one in flight. */
  cancelPending(): void {
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.pending = false;
    this.inflight?.cancel();
    this.inflight = undefined;
  }

  /** Whether a request is waiting for its quiet period to end. */
  get scheduled(): boolean {
    return this.pending;
  }

  dispose(): void {
    this.cancelPending();
    this.disposed = true;
  }
}
