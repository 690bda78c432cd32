import { describe, expect, it } from 'vitest';
import {
  callSlotOf,
  createCallSlotBuffer,
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
