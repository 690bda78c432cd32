import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadUserConfig, readUserConfig } from './user-config.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-user-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PROVIDER = { kind: 'openai-compatible', baseUrl: 'http://h/v1', model: 'm' };

describe('readUserConfig', () => {
  it('keeps the mode of a file whose provider is unusable, and names the provider problem', async () => {
    const file = join(dir, 'config.json');
    await writeFile(file, JSON.stringify({ mode: 'read-only', provider: { ...PROVIDER, x: 1 } }));
    const config = await readUserConfig(file, {});
    expect(config).toMatchObject({ provider: undefined, mode: 'read-only', modeUnknown: false });
    expect(config.issues).toEqual([`${file}: provider: unknown field(s) "x"`]);
    // A command that uses the model still refuses, naming the field.
    await expect(loadUserConfig(file, {})).rejects.toThrow(
      `${file}: provider: unknown field(s) "x"`,
    );
  });

  it('marks the mode unknown when the file does not parse or its mode is invalid', async () => {
    const file = join(dir, 'config.json');
    await writeFile(file, '{"mode": "read-');
    expect(await readUserConfig(file, {})).toMatchObject({ mode: undefined, modeUnknown: true });
    await writeFile(file, JSON.stringify({ mode: 'readonly', provider: PROVIDER }));
    const config = await readUserConfig(file, {});
    expect(config).toMatchObject({ mode: undefined, modeUnknown: true });
    expect(config.provider?.model).toBe('m');
  });
});
