import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pluginsJsonSource } from './plugins-json-source.js';
import { WASM_KIND } from './wasm-connector.js';

let dir = '';
afterEach(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const DIGEST = 'a'.repeat(64);

describe('pluginsJsonSource', () => {
  it('turns each plugins.json entry into a wasm entry checked at mount', async () => {
    dir = mkdtempSync(join(tmpdir(), 'clat-plugins-source-'));
    const file = join(dir, 'plugins.json');
    writeFileSync(
      file,
      JSON.stringify({
        echo: { path: 'echo.wasm', dirs: ['data'], sha256: `sha256:${DIGEST}`, config: { n: 1 } },
        notes: { manifest: '/opt/notes' },
        'bad id!': { path: 'x.wasm' },
        both: { path: 'x.wasm', manifest: 'y' },
      }),
    );
    const source = pluginsJsonSource({ file, clatHome: dir });
    expect(source.label).toBe('plugins.json entry');
    const out = await source.collect({ taken: new Set() });
    expect(out.entries).toEqual([
      {
        kind: WASM_KIND,
        name: 'echo',
        origin: 'plugins.json',
        config: {
          dirs: [join(dir, 'data')],
          validateConfig: true,
          path: join(dir, 'echo.wasm'),
          sha256: DIGEST,
          config: { n: 1 },
        },
      },
      {
        kind: WASM_KIND,
        name: 'notes',
        origin: 'plugins.json',
        config: { dirs: [], validateConfig: true, manifest: '/opt/notes' },
      },
    ]);
    expect(out.issues.map((issue) => [issue.file, issue.path])).toEqual([
      [file, 'bad id!'],
      [file, 'both'],
    ]);
    expect(out.issues[1]?.message).toContain('set exactly one of "path"');
    expect(out.notes).toEqual([]);
    expect(out.prompts).toEqual([]);
  });

  it('contributes nothing when the file is missing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'clat-plugins-source-'));
    const file = join(dir, 'plugins.json');
    const empty = await pluginsJsonSource({ file, clatHome: dir }).collect({ taken: new Set() });
    expect(empty).toEqual({ entries: [], issues: [], notes: [], prompts: [] });
  });

  it('reports an empty, truncated or directory plugins.json as an issue instead of failing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'clat-plugins-source-'));
    const file = join(dir, 'plugins.json');
    const collect = () => pluginsJsonSource({ file, clatHome: dir }).collect({ taken: new Set() });
    for (const text of ['', '{"echo": {"path": "e', '[]']) {
      writeFileSync(file, text);
      const out = await collect();
      expect(out.entries).toEqual([]);
      expect(out.issues).toEqual([
        expect.objectContaining({
          file,
          path: '(root)',
          message: expect.stringMatching(/; its plugins are skipped until it is fixed by hand$/),
        }),
      ]);
    }
    rmSync(file);
    mkdirSync(file);
    const out = await collect();
    expect(out.issues[0]?.message).toMatch(/^cannot be read: EISDIR; its plugins are skipped/);
  });
});
