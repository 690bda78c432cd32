import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import {
  awaitRequest,
  callSlotOf,
  createCallSlotBuffer,
  REQUEST_SEQ,
  readSlotText,
  SLOT_DATA_BYTES,
  writeSlotText,
} from './call-slot.mjs';

describe('the call slot', () => {
  it('round-trips UTF-8 text at an offset and reports its byte length', () => {
    const slot = callSlotOf(createCallSlotBuffer());
    const name = 'échø';
    const nameBytes = writeSlotText(slot, 0, name);
    expect(nameBytes).toBe(Buffer.byteLength(name));
    const args = '{"text":"héllo 🌍"}';
    const argsBytes = writeSlotText(slot, nameBytes, args);
    expect(readSlotText(slot, 0, nameBytes)).toBe(name);
    expect(readSlotText(slot, nameBytes, argsBytes)).toBe(args);
  });

  it('fits text exactly up to the end of the data area, multi-byte characters included', () => {
    const slot = callSlotOf(createCallSlotBuffer());
    // 3-byte characters make the quick length check fail: the exact count decides.
    const text = `${'€'.repeat(1000)}${'a'.repeat(SLOT_DATA_BYTES - 3000)}`;
    expect(writeSlotText(slot, 0, text)).toBe(SLOT_DATA_BYTES);
    expect(readSlotText(slot, 0, SLOT_DATA_BYTES)).toBe(text);
  });

  it('refuses text that does not fit (it then goes by message), by one byte too', () => {
    const slot = callSlotOf(createCallSlotBuffer());
    expect(writeSlotText(slot, 0, 'a'.repeat(SLOT_DATA_BYTES + 1))).toBe(-1);
    expect(
      writeSlotText(slot, 10, `${'€'.repeat(1000)}${'a'.repeat(SLOT_DATA_BYTES - 3000)}`),
    ).toBe(-1);
    expect(writeSlotText(slot, SLOT_DATA_BYTES, '')).toBe(0);
  });
});

/** A thread that wakes the slot's waiter `stray` times without a new call, then publishes `next`. */
function waker(buffer: SharedArrayBuffer, stray: number, next: number | undefined): Worker {
  const source = `
    const { workerData } = require('node:worker_threads');
    const header = new Int32Array(workerData.buffer, 0, 8);
    const nap = new Int32Array(new SharedArrayBuffer(4));
    for (let i = 0; i < workerData.stray; i++) {
      Atomics.wait(nap, 0, 0, 2);
      Atomics.notify(header, ${REQUEST_SEQ});
    }
    if (workerData.next !== undefined) {
      Atomics.store(header, ${REQUEST_SEQ}, workerData.next);
      Atomics.notify(header, ${REQUEST_SEQ});
    }
  `;
  return new Worker(source, { eval: true, workerData: { buffer, stray, next } });
}

describe('the worker waiting for a call', () => {
  it('returns only once a new call number is there, sleeping through wake-ups without one', async () => {
    const buffer = createCallSlotBuffer();
    const slot = callSlotOf(buffer);
    Atomics.store(slot.header, REQUEST_SEQ, 5);
    const thread = waker(buffer, 5, 6);
    const exited = new Promise((resolve) => thread.once('exit', resolve));
    expect(awaitRequest(slot.header, 5, 0.1, 60_000)).toBe(true);
    expect(Atomics.load(slot.header, REQUEST_SEQ)).toBe(6);
    await exited;
  });

  it('reports no call when only wake-ups without one came before the idle wait ended', async () => {
    const buffer = createCallSlotBuffer();
    const slot = callSlotOf(buffer);
    Atomics.store(slot.header, REQUEST_SEQ, 5);
    const thread = waker(buffer, 3, undefined);
    const exited = new Promise((resolve) => thread.once('exit', resolve));
    expect(awaitRequest(slot.header, 5, 0.1, 100)).toBe(false);
    expect(Atomics.load(slot.header, REQUEST_SEQ)).toBe(5);
    await exited;
  });

  it('returns at once when the call number changed while it spun', () => {
    const slot = callSlotOf(createCallSlotBuffer());
    Atomics.store(slot.header, REQUEST_SEQ, 7);
    expect(awaitRequest(slot.header, 6, 0.1, 60_000)).toBe(true);
  });
});
