// The call slot: one SharedArrayBuffer per guest instance through which the host hands a warm
// tool call to the worker and reads its result, with Atomics for the wake-ups. The worker waits
// for the next call in Atomics.wait (a futex, not its event loop), and the host waits for the
// result with Atomics.waitAsync, so neither side pays for a MessagePort event, its structured
// clone or its wake-up through libuv. Texts that do not fit, and results whose guest wrote
// output during the call (which must reach the host before the result), go by message instead.
//
// Header (Int32 words, then one Float64):
//   REQUEST_SEQ   the host's call number; the worker waits on it
//   REQUEST_KIND  REQUEST_INLINE (name and arguments in the data area) or REQUEST_PORT
//   NAME_BYTES, ARGS_BYTES   inline request text lengths (UTF-8)
//   RESULT_SEQ    the call number the worker finished; the host waits on it
//   RESULT_KIND   RESULT_OK / RESULT_ERR / RESULT_TRAP (inline), or RESULT_MESSAGE
//   RESULT_BYTES  inline result length (UTF-8)
//   memory (Float64 at byte 32)   guest memory in bytes after the call

export const REQUEST_SEQ = 0;
export const REQUEST_KIND = 1;
export const NAME_BYTES = 2;
export const ARGS_BYTES = 3;
export const RESULT_SEQ = 4;
export const RESULT_KIND = 5;
export const RESULT_BYTES = 6;

export const REQUEST_INLINE = 0;
export const REQUEST_PORT = 1;

export const RESULT_OK = 0;
export const RESULT_ERR = 1;
export const RESULT_TRAP = 2;
/** The result follows as a `result` message on the worker's port. */
export const RESULT_MESSAGE = 3;

const HEADER_WORDS = 8;
const MEMORY_OFFSET = 32;
const DATA_OFFSET = 64;
/** Room for name plus arguments, or for a result, in one slot. */
export const SLOT_DATA_BYTES = 256 * 1024;

/** A fresh slot's buffer (its header starts zeroed: no call sent, none finished). */
export function createCallSlotBuffer() {
  return new SharedArrayBuffer(DATA_OFFSET + SLOT_DATA_BYTES);
}

/** Views of a slot's buffer, on either side. */
export function callSlotOf(buffer) {
  return {
    header: new Int32Array(buffer, 0, HEADER_WORDS),
    memory: new Float64Array(buffer, MEMORY_OFFSET, 1),
    data: Buffer.from(buffer, DATA_OFFSET, SLOT_DATA_BYTES),
  };
}

/**
 * Writes `text` as UTF-8 at `offset` of the data area and returns its byte length, or -1 when
 * it does not fit (nothing usable is written then).
 */
export function writeSlotText(slot, offset, text) {
  const room = SLOT_DATA_BYTES - offset;
  // At most 3 bytes per UTF-16 unit: the exact count is needed only near the limit.
  if (text.length * 3 > room && Buffer.byteLength(text, 'utf8') > room) return -1;
  return slot.data.write(text, offset, 'utf8');
}

/**
 * Spins up to `ms` while `cell[index]` still holds `value`; true once it changed. terminate()
 * still interrupts it.
 */
export function changesWithin(cell, index, value, ms) {
  const end = performance.now() + ms;
  while (Atomics.load(cell, index) === value) {
    if (performance.now() >= end) return false;
  }
  return true;
}

/**
 * The worker's wait for the call after `served`: spins `spinMs`, then sleeps in Atomics.wait for
 * up to `idleMs`. True once a new call number is there, false when none came. A wake-up is only
 * a hint: a notify can arrive after the worker already took the call it was for (the host was
 * preempted between publishing the number and notifying), and serving on it would serve that
 * call again, over the data area the next request is being written to.
 */
export function awaitRequest(header, served, spinMs, idleMs) {
  if (changesWithin(header, REQUEST_SEQ, served, spinMs)) return true;
  const end = performance.now() + idleMs;
  for (;;) {
    const left = end - performance.now();
    if (left <= 0) return false;
    Atomics.wait(header, REQUEST_SEQ, served, left);
    if (Atomics.load(header, REQUEST_SEQ) !== served) return true;
  }
}

/** Reads `bytes` bytes of UTF-8 at `offset` of the data area. */
export function readSlotText(slot, offset, bytes) {
  return slot.data.toString('utf8', offset, offset + bytes);
}
