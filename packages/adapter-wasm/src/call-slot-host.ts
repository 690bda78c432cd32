/**
 * The host's side of an instance's call slot (worker/call-slot.mjs): hands a warm tool call to
 * the guest worker and reads its result. Texts that do not fit go by the call port; a result
 * the worker sent by message (behind guest output it must not overtake) is left to the caller's
 * message handler.
 * @module
 */
import type { MessagePort } from 'node:worker_threads';
import {
  ARGS_BYTES,
  type CallSlot,
  NAME_BYTES,
  REQUEST_INLINE,
  REQUEST_KIND,
  REQUEST_PORT,
  REQUEST_SEQ,
  RESULT_BYTES,
  RESULT_ERR,
  RESULT_KIND,
  RESULT_MESSAGE,
  RESULT_OK,
  RESULT_SEQ,
  readSlotText,
  writeSlotText,
} from './worker/call-slot.mjs';

/** How the guest finished a call: its result text, or the error/trap text. */
export type SlotOutcome = 'ok' | 'err' | 'trap';

/** Atomics.waitAsync (ES2024; Node 16+), typed here: the package's lib is ES2023. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      cell: Int32Array,
      index: number,
      value: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/** Writes call `id` (name and arguments) into the slot, or onto `callPort`, and wakes the worker. */
export function sendSlotCall(
  slot: CallSlot,
  callPort: MessagePort,
  id: number,
  name: string,
  argsJson: string,
): void {
  const header = slot.header;
  const nameBytes = writeSlotText(slot, 0, name);
  const argsBytes = nameBytes < 0 ? -1 : writeSlotText(slot, nameBytes, argsJson);
  if (argsBytes < 0) {
    header[REQUEST_KIND] = REQUEST_PORT;
    callPort.postMessage({ name, argsJson });
  } else {
    header[REQUEST_KIND] = REQUEST_INLINE;
    header[NAME_BYTES] = nameBytes;
    header[ARGS_BYTES] = argsBytes;
  }
  Atomics.store(header, REQUEST_SEQ, id);
  Atomics.notify(header, REQUEST_SEQ);
}

/**
 * Calls `finished` once the slot says the worker finished call `id`, while `waiting()` holds
 * (it turns false when the instance died or the call settled otherwise). A wake-up may be for
 * the call before (whose result came by message and let this one start early), so it looks
 * again; a result sent by message is not reported here.
 */
export function awaitSlotResult(
  slot: CallSlot,
  id: number,
  waiting: () => boolean,
  finished: (outcome: SlotOutcome, text: string, memoryBytes: number) => void,
): void {
  if (!waiting()) return;
  const header = slot.header;
  const done = Atomics.load(header, RESULT_SEQ);
  if (done !== id) {
    const wait = waitAsync(header, RESULT_SEQ, done);
    if (wait.async) wait.value.then(() => awaitSlotResult(slot, id, waiting, finished));
    else awaitSlotResult(slot, id, waiting, finished);
    return;
  }
  const kind = header[RESULT_KIND];
  // The result follows as a message, behind the guest output it must not overtake.
  if (kind === RESULT_MESSAGE) return;
  finished(
    kind === RESULT_OK ? 'ok' : kind === RESULT_ERR ? 'err' : 'trap',
    readSlotText(slot, 0, header[RESULT_BYTES] as number),
    slot.memory[0] as number,
  );
}

/** Releases a host wait on a call that will never finish (the instance is being killed). */
export function releaseSlotWaiters(slot: CallSlot): void {
  Atomics.notify(slot.header, RESULT_SEQ);
}
