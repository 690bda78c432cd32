/**
 * The built declarations work for a consumer: a fresh project that installs every package which
 * ships types (links in its own node_modules, as a package manager would) and imports each typed
 * entry compiles under strict settings with `skipLibCheck: false` and
 * `exactOptionalPropertyTypes: true`, reading dist/ only (no source condition). Runs after
 * `pnpm build` (turbo runs the declaration build before this package's tests).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, typedEntries, workspacePackages } from './workspace.js';

const typed = workspacePackages().filter((p) => Object.keys(typedEntries(p.manifest)).length > 0);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const consumer = mkdtempSync(join(ROOT, '.tmp', 'dist-types-'));
afterAll(() => rmSync(consumer, { recursive: true, force: true }));

describe('built declarations, compiled by a consumer', () => {
  it('every typed export entry points at a built .d.ts', () => {
    const missing = typed.flatMap(({ dir, manifest }) =>
      Object.values(typedEntries(manifest))
        .map((types) => join(dir, types))
        .filter((file) => !existsSync(join(ROOT, file))),
    );
    expect(missing, 'run "pnpm build" first').toEqual([]);
  });

  // One tsc over every declaration file (ours and third-party): minutes on a busy 2-core machine.
  it('compiles with skipLibCheck false and exactOptionalPropertyTypes true', () => {
    const imports: string[] = [];
    for (const { dir, manifest } of typed) {
      const link = join(consumer, 'node_modules', manifest.name);
      mkdirSync(join(link, '..'), { recursive: true });
      symlinkSync(join(ROOT, dir), link, 'dir');
      for (const subpath of Object.keys(typedEntries(manifest))) {
        const specifier = `${manifest.name}${subpath.slice(1)}`;
        imports.push(`import type * as m${imports.length} from '${specifier}';`);
      }
    }
    const names = imports.map((_, i) => `typeof m${i}`).join(', ');
    writeFileSync(
      join(consumer, 'index.ts'),
      `${imports.join('\n')}\nexport type Surfaces = [${names}];\n`,
    );
    writeFileSync(join(consumer, 'package.json'), '{ "type": "module", "private": true }\n');
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          lib: ['ES2023', 'ESNext.Disposable', 'DOM'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
          typeRoots: [join(ROOT, 'test', 'node_modules', '@types')],
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: ['index.ts'],
      }),
    );

    const result = spawnSync(process.execPath, [tsc, '-p', consumer], { encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(imports.length).toBeGreaterThanOrEqual(typed.length);
  }, 600_000);
});
