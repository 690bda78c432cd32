import { describe, expect, it } from 'vitest';
import { COMMAND_CATALOG } from './catalog.js';
import { COMMANDS } from './index.js';

describe('COMMAND_CATALOG', () => {
  it('lists every command of COMMANDS in the same order with the same summary', () => {
    expect(COMMAND_CATALOG.map(({ name, summary }) => ({ name, summary }))).toEqual(
      COMMANDS.map(({ name, summary }) => ({ name, summary })),
    );
  });

  it('loads each command module on demand', async () => {
    for (const entry of COMMAND_CATALOG) {
      expect(await entry.load()).toBe(COMMANDS.find((command) => command.name === entry.name));
    }
  });
});
