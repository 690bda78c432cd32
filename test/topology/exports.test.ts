/**
 * Pins each workspace package's `exports` keys: a new entry point is a public API decision and
 * changes this list in the same commit. Test helpers go under `./testing`, never the root.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const PINNED: Record<string, string[]> = {
  '@clat/adapter-dsh': ['.', './package.json'],
  '@clat/adapter-glm': ['.', './package.json'],
  '@clat/adapter-mcp-http': ['.', './package.json'],
  '@clat/adapter-mcp-stdio': ['.', './prestart', './package.json'],
  '@clat/adapter-mcp': ['.', './plain-stdio-entry', './testing', './package.json'],
  '@clat/adapter-wasm': ['.', './package.json'],
  '@clat/kernel': ['.', './testing', './wit/plugin.wit', './schemas/*.json', './package.json'],
  '@clat/native-tools': ['.', './package.json'],
  '@clat/packaging': ['.', './package.json'],
  '@clat/process': ['.', './package.json'],
  '@clat/provider-openai': ['.', './testing', './package.json'],
  '@clat/wasm-guest-sdk': ['.', './build', './wit/plugin.wit', './package.json'],
  '@clat/cli': ['.', './package.json'],
  '@clat-examples/mcp-only': ['./package.json'],
  '@clat/gateway': ['.', './package.json'],
};

function manifests(): { name: string; exports: string[] }[] {
  return ['packages', 'apps'].flatMap((base) =>
    readdirSync(join(ROOT, base))
      .map((name) => join(ROOT, base, name, 'package.json'))
      .filter((file) => existsSync(file))
      .map((file) => {
        const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
          name: string;
          exports?: Record<string, unknown>;
        };
        return { name: manifest.name, exports: Object.keys(manifest.exports ?? {}) };
      }),
  );
}

it('every package and app has exactly its pinned exports keys', () => {
  const actual = Object.fromEntries(manifests().map((m) => [m.name, m.exports]));
  expect(actual).toEqual(PINNED);
});

it('no package exposes its test helpers outside ./testing', () => {
  for (const { name, exports } of manifests()) {
    const leaked = exports.filter((key) => /test|fixture|support/.test(key) && key !== './testing');
    expect(leaked, name).toEqual([]);
  }
});
