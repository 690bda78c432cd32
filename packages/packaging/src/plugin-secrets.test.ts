import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECRETS_DIR, writeSecrets } from './plugin-secrets.js';

let home = '';
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'clat-secrets-'));
});
afterEach(() => rm(home, { recursive: true, force: true }));

describe('writeSecrets', () => {
  it('leaves no temporary copy of the secrets when the replacement fails', async () => {
    // A non-empty directory where the secrets file goes: the write works, the rename fails.
    const blocked = join(home, SECRETS_DIR, 'vault.json');
    await mkdir(blocked, { recursive: true });
    await writeFile(join(blocked, 'inside'), 'kept');
    await expect(writeSecrets(home, 'vault', { pin: 'sk-proj-0123456789' })).rejects.toThrow();
    expect(await readdir(join(home, SECRETS_DIR))).toEqual(['vault.json']);
  });
});
