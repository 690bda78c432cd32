/**
 * The build set-up every package must follow (CONTRIBUTING.md, "Packages"): declarations come
 * from one `tsc -b tsconfig.build.json` over project references, so a package that ships types is
 * listed there and references exactly the workspace packages it depends on; and the pnpm the
 * README bootstraps is the one the repository pins.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Manifest, ROOT, readJson, typedEntries, workspacePackages } from './workspace.js';

interface BuildConfig {
  extends?: string | string[];
  references?: { path: string }[];
}

const packages = workspacePackages();
const typed = packages.filter((p) => Object.keys(typedEntries(p.manifest)).length > 0);
const byName = new Map(packages.map((p) => [p.manifest.name, p]));
const workspaceDeps = (m: Manifest) =>
  [
    ...new Set([
      ...Object.keys(m.dependencies ?? {}),
      ...Object.keys(m.peerDependencies ?? {}),
      ...Object.keys(m.devDependencies ?? {}),
    ]),
  ]
    .filter((name) => byName.has(name))
    .sort();

describe('declaration build (tsc -b over project references)', () => {
  it('finds the packages that ship types', () => {
    expect(typed.map((p) => p.manifest.name)).toContain('@clat/kernel');
  });

  const root = readJson('tsconfig.build.json') as BuildConfig;
  const listed = (root.references ?? []).map((r) => join(r.path)).sort();

  for (const { dir, manifest } of typed) {
    describe(manifest.name, () => {
      const file = `${dir}/tsconfig.build.json`;

      it('has a tsconfig.build.json listed in the root tsconfig.build.json', () => {
        expect(existsSync(join(ROOT, file)), `${file} is missing`).toBe(true);
        expect(listed).toContain(file);
      });

      it('extends its tsconfig.json and the shared tsconfig.dts.json', () => {
        const config = readJson(file) as BuildConfig;
        expect(config.extends).toEqual([
          './tsconfig.json',
          relative(join(ROOT, dir), join(ROOT, 'tsconfig.dts.json')),
        ]);
      });

      it('references exactly the workspace packages it depends on that ship types', () => {
        const config = readJson(file) as BuildConfig;
        const referenced = (config.references ?? [])
          .map((r) => relative(ROOT, join(ROOT, dir, r.path)))
          .sort();
        const expected = workspaceDeps(manifest)
          .map((name) => byName.get(name))
          .filter((p) => p !== undefined && Object.keys(typedEntries(p.manifest)).length > 0)
          .map((p) => `${p?.dir}/tsconfig.build.json`)
          .sort();
        expect(referenced).toEqual(expected);
      });

      it('keeps the build info out of the published tarball', () => {
        const files = (readJson(`${dir}/package.json`) as { files?: string[] }).files ?? [];
        expect(files).toContain('!dist/.tsbuildinfo');
      });

      it('keeps the declarations when tsup cleans dist/', () => {
        const tsup = readFileSync(join(ROOT, dir, 'tsup.config.ts'), 'utf8');
        expect(tsup).not.toMatch(/\bdts\s*:/);
        expect(tsup).toContain("clean: ['!**/*.d.ts', '!**/*.d.ts.map', '!.tsbuildinfo']");
      });
    });
  }
});

describe('pnpm bootstrap', () => {
  const rootManifest = readJson('package.json') as Manifest;
  const pinned = rootManifest.packageManager?.replace(/^pnpm@/, '');

  it('pins one pnpm version as packageManager and as a root devDependency', () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(rootManifest.devDependencies?.pnpm).toBe(pinned);
  });

  it('the README commands fetch exactly that pnpm through npx', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const start = '<!-- ci:commands -->';
    const block = readme.slice(
      readme.indexOf(start) + start.length,
      readme.indexOf('<!-- /ci:commands -->'),
    );
    const commands = block.split('\n').filter((line) => /^[^#`\s]/.test(line));
    expect(commands).toHaveLength(2);
    for (const command of commands) {
      expect(command.startsWith(`npx -y pnpm@${pinned} install --frozen-lockfile && `)).toBe(true);
      // After the install, pnpm runs from node_modules/.bin; a bare `pnpm` would need a global one.
      expect(command).not.toMatch(/(^|&& )pnpm /);
    }
  });
});
