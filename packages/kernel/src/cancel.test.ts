import { describe, expect, it } from 'vitest';
import { abortable, CancelToken, delay, onAbort, withDeadline } from './cancel.js';
import { KernelErrorCode } from './errors.js';

describe('CancelToken', () => {
  it('propagates from parent to child, never the reverse', () => {
    const parent = new CancelToken();
    const child = parent.child();
    const other = parent.child();
    child.cancel();
    expect(parent.cancelled).toBe(false);
    parent.cancel('stop');
    expect(other.cancelled).toBe(true);
    expect(other.signal.reason).toBe('stop');
    expect(() => other.throwIfCancelled('x')).toThrow(
      expect.objectContaining({ code: KernelErrorCode.CANCELLED }),
    );
  });

  it('a child of an already-cancelled parent starts cancelled', () => {
    const parent = new CancelToken();
    parent.cancel();
    expect(parent.child().cancelled).toBe(true);
  });
});

describe('abortable / withDeadline / delay', () => {
  it('rejects promptly on abort even if the work never settles', async () => {
    const token = new CancelToken();
    const pending = abortable(new Promise(() => {}), token.signal, 'wait');
    token.cancel('user');
    await expect(pending).rejects.toMatchObject({
      code: KernelErrorCode.CANCELLED,
      message: 'wait was cancelled: user',
    });
  });

  it('times out with TIMEOUT naming the operation and aborts the work signal', async () => {
    let workSignal: AbortSignal | undefined;
    await expect(
      withDeadline(
        (signal) => {
          workSignal = signal;
          return new Promise(() => {});
        },
        10,
        'tools/list page',
      ),
    ).rejects.toMatchObject({
      code: KernelErrorCode.TIMEOUT,
      message: 'tools/list page timed out after 10 ms',
    });
    expect(workSignal?.aborted).toBe(true);
  });

  it('caller cancellation wins over the deadline', async () => {
    const token = new CancelToken();
    const pending = withDeadline(() => new Promise(() => {}), 10_000, 'call', token.signal);
    token.cancel();
    await expect(pending).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
  });

  it('passes results and errors through', async () => {
    await expect(withDeadline(async () => 42, 1000, 'x')).resolves.toBe(42);
    await expect(
      withDeadline(async () => Promise.reject(new Error('e')), 1000, 'x'),
    ).rejects.toThrow('e');
    const token = new CancelToken();
    const d = delay(10_000, token.signal);
    token.cancel();
    await expect(d).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
  });
});

describe('onAbort', () => {
  it('fans one native listener out, detaches in O(1) and fires at once when already aborted', () => {
    const controller = new AbortController();
    const fired: number[] = [];
    const detachers = Array.from({ length: 5_000 }, (_, i) =>
      onAbort(controller.signal, () => fired.push(i)),
    );
    for (const detach of detachers.slice(0, 4_998)) detach();
    controller.abort('stop');
    expect(fired).toEqual([4_998, 4_999]);
    let late = false;
    onAbort(controller.signal, () => {
      late = true;
    });
    expect(late).toBe(true);
  });

  it('delay detaches from a long-lived signal once it resolves', async () => {
    const controller = new AbortController();
    await delay(1, controller.signal);
    await expect(delay(10_000, AbortSignal.abort('x'))).rejects.toMatchObject({
      code: 'CANCELLED',
    });
    const pending = delay(10_000, controller.signal);
    controller.abort('user');
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});
