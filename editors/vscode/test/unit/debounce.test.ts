import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import { Cancellation, LatestRequest, Timers } from '../../src/lib/debounce';

/** Timers driven by hand. */
class FakeTimers implements Timers {
  now = 0;
  private next = 1;
  private pending = new Map<number, { at: number; fn: () => void }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.pending.delete(h as number);
  }
  advance(ms: number): void {
    this.now += ms;
    for (const [id, t] of [...this.pending].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at <= this.now) {
        this.pending.delete(id);
        t.fn();
      }
    }
  }
  get size(): number {
    return this.pending.size;
  }
}

/** A request whose answer the test releases. */
interface Call {
  input: string;
  cancel: Cancellation;
  resolve: (v: string) => void;
  reject: (e: unknown) => void;
  cancelled: boolean;
}

function setup(delayMs = 150) {
  const timers = new FakeTimers();
  const calls: Call[] = [];
  const results: string[] = [];
  const errors: string[] = [];
  const busy: boolean[] = [];
  const lr = new LatestRequest<string, string>({
    delayMs,
    timers,
    run: (input, cancel) =>
      new Promise<string>((resolve, reject) => {
        const call: Call = { input, cancel, resolve, reject, cancelled: false };
        cancel.onCancel(() => {
          call.cancelled = true;
        });
        calls.push(call);
      }),
    onResult: (r) => results.push(r),
    onError: (e) => errors.push(String(e)),
    onBusy: (b) => busy.push(b),
  });
  return { timers, calls, results, errors, busy, lr };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('LatestRequest', () => {
  it('waits for quiet typing and sends only the last input', async () => {
    const { timers, calls, lr } = setup();
    lr.schedule('u');
    timers.advance(100);
    lr.schedule('us');
    timers.advance(100);
    lr.schedule('use');
    timers.advance(149);
    assert.equal(calls.length, 0);
    timers.advance(1);
    assert.deepEqual(calls.map((c) => c.input), ['use']);
  });

  it('cancels the request in flight when the input changes', async () => {
    const { timers, calls, results, lr } = setup();
    lr.schedule('user');
    timers.advance(150);
    assert.equal(calls.length, 1);
    lr.schedule('users');
    assert.equal(calls[0].cancelled, true);
    assert.equal(calls[0].cancel.cancelled, true);
    timers.advance(150);
    calls[0].resolve('stale');
    calls[1].resolve('fresh');
    await tick();
    assert.deepEqual(results, ['fresh']);
  });

  it('drops answers of superseded requests even if they were not cancelled in time', async () => {
    const { timers, calls, results, errors, lr } = setup(0);
    lr.schedule('a');
    lr.schedule('b');
    assert.equal(calls.length, 2);
    calls[1].resolve('B');
    calls[0].resolve('A');
    calls[0].reject(new Error('late'));
    await tick();
    assert.deepEqual(results, ['B']);
    assert.deepEqual(errors, []);
    assert.equal(timers.size, 0);
  });

  it('reports errors of the latest request only', async () => {
    const { timers, calls, errors, lr } = setup();
    lr.schedule('x');
    timers.advance(150);
    calls[0].reject(new Error('boom'));
    await tick();
    assert.deepEqual(errors, ['Error: boom']);
  });

  it('runs at once with now()', async () => {
    const { calls, results, lr } = setup();
    lr.now('sel');
    assert.deepEqual(calls.map((c) => c.input), ['sel']);
    calls[0].resolve('ok');
    await tick();
    assert.deepEqual(results, ['ok']);
  });

  it('reports busy while the latest request runs', async () => {
    const { timers, calls, busy, lr } = setup();
    lr.schedule('a');
    timers.advance(150);
    assert.deepEqual(busy, [true]);
    lr.schedule('ab'); // cancels a, waits
    calls[0].resolve('A');
    await tick();
    assert.deepEqual(busy, [true], 'no idle flicker while the next request waits');
    timers.advance(150);
    calls[1].resolve('AB');
    await tick();
    assert.deepEqual(busy, [true, true, false]);
  });

  it('does nothing after dispose', async () => {
    const { timers, calls, results, lr } = setup();
    lr.schedule('a');
    lr.dispose();
    timers.advance(1000);
    lr.schedule('b');
    timers.advance(1000);
    assert.equal(calls.length, 0);
    assert.deepEqual(results, []);
  });

  it('cancelPending drops the wait and the request in flight', async () => {
    const { timers, calls, results, lr } = setup();
    lr.schedule('a');
    timers.advance(150);
    lr.schedule('ab');
    assert.equal(lr.scheduled, true);
    lr.cancelPending();
    assert.equal(lr.scheduled, false);
    timers.advance(1000);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].cancelled, true);
    calls[0].resolve('A');
    await tick();
    assert.deepEqual(results, []);
  });

  it('runs cancel hooks registered after cancellation at once', async () => {
    const { timers, calls, lr } = setup();
    lr.schedule('a');
    timers.advance(150);
    lr.cancelPending();
    let ran = false;
    calls[0].cancel.onCancel(() => {
      ran = true;
    });
    assert.equal(ran, true);
  });
});
