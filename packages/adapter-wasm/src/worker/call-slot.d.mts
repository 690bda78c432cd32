// Types of call-slot.mjs (the module itself is plain ESM, shared with the guest worker).
export declare const REQUEST_SEQ: 0;
export declare const REQUEST_KIND: 1;
export declare const NAME_BYTES: 2;
export declare const ARGS_BYTES: 3;
export declare const RESULT_SEQ: 4;
export declare const RESULT_KIND: 5;
export declare const RESULT_BYTES: 6;
export declare const REQUEST_INLINE: 0;
export declare const REQUEST_PORT: 1;
export declare const RESULT_OK: 0;
export declare const RESULT_ERR: 1;
export declare const RESULT_TRAP: 2;
export declare const RESULT_MESSAGE: 3;
export declare const SLOT_DATA_BYTES: number;

export interface CallSlot {
  header: Int32Array;
  memory: Float64Array;
  data: Buffer;
}

export declare function createCallSlotBuffer(): SharedArrayBuffer;
export declare function callSlotOf(buffer: SharedArrayBuffer): CallSlot;
export declare function writeSlotText(slot: CallSlot, offset: number, text: string): number;
export declare function readSlotText(slot: CallSlot, offset: number, bytes: number): string;
export declare function changesWithin(
  cell: Int32Array,
  index: number,
  value: number,
  ms: number,
): boolean;
export declare function awaitRequest(
  header: Int32Array,
  served: number,
  spinMs: number,
  idleMs: number,
): boolean;
