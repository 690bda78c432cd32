/// <reference path="./gen/plugin.d.ts" />

import type { Definition, Effect as WitEffect } from 'clat:plugin/types@0.1.0';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expectTypeOf, it } from 'vitest';
import type { Effect, ToolDefinition } from './plugin.js';

describe('guest types generated from wit/plugin.wit', () => {
  it('src/gen matches a fresh jco generation (run "pnpm guest-types" after editing the WIT)', () => {
    // Throws with the script's message (naming the stale files) when the check fails.
    execFileSync(process.execPath, ['scripts/guest-types.mjs', '--check'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: 'pipe',
    });
  }, 60_000);

  it('the SDK types are the WIT types', () => {
    expectTypeOf<Effect>().toEqualTypeOf<WitEffect>();
    expectTypeOf<ToolDefinition>().toEqualTypeOf<Definition>();
  });
});
