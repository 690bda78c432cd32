import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { v8FlagsFor } from './bin-v8-flags.js';

describe('v8FlagsFor', () => {
  it('compiles WebAssembly with the baseline compiler only in one-shot commands', () => {
    for (const command of ['call', 'tools', 'mcp', 'plugin', 'prompts', 'resources']) {
      expect(v8FlagsFor(command)).toEqual(['--no-wasm-dynamic-tiering', '--no-wasm-tier-up']);
    }
  });

  it('leaves tiering to the session and the headless agent turn, and sets nothing for commands that run no tool', () => {
    for (const command of ['session', 'chat', 'exec', 'version', 'help', 'trust', 'other']) {
      expect(v8FlagsFor(command)).toEqual([]);
    }
  });

  it('names flags this Node accepts', () => {
    // Node refuses an unknown flag on its command line (exit 9, "bad option").
    const run = spawnSync(process.execPath, [...v8FlagsFor('call'), '-e', '0'], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
