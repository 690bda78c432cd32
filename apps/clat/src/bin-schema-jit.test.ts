import { describe, expect, it } from 'vitest';
import { schemaJitOffFor } from './bin-schema-jit.js';
import { COMMAND_CATALOG } from './commands/catalog.js';

describe('schemaJitOffFor', () => {
  it('runs every command and the session without the JIT', () => {
    for (const command of ['session', ...COMMAND_CATALOG.map((entry) => entry.name)]) {
      expect(schemaJitOffFor(command), command).toBe(true);
    }
    expect(COMMAND_CATALOG.map((entry) => entry.name)).toEqual(
      expect.arrayContaining(['chat', 'exec', 'tools', 'call', 'plugin', 'trust']),
    );
  });

  it('leaves zod unloaded for --version, help and an unknown word', () => {
    for (const command of ['version', 'help', 'other', 'toolz']) {
      expect(schemaJitOffFor(command), command).toBe(false);
    }
  });
});
