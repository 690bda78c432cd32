/**
 * Pins each workspace package's `exports` keys: a new entry point is a public API decision and
 * changes this list in the same commit. Test helpers go under `./testing`, never the root. Each
 * package README names every runtime export of its root and `./testing` entry; knip (in
 * `pnpm lint`) fails on a root export nothing imports unless it is tagged `@public`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const PINNED: Record<string, string[]> = {
  '@clat/adapter-dsh': ['.', './package.json'],
  '@clat/adapter-glm': ['.', './package.json'],
  '@clat/adapter-mcp-http': ['.', './package.json'],
  '@clat/adapter-mcp-stdio': ['.', './eras', './npx', './prestart', './package.json'],
  '@clat/adapter-mcp': ['.', './plain-stdio-entry', './testing', './package.json'],
  '@clat/adapter-wasm': ['.', './package.json'],
  '@clat/kernel': ['.', './testing', './wit/plugin.wit', './schemas/*.json', './package.json'],
  '@clat/native-tools': ['.', './package.json'],
  '@clat/packaging': ['.', './package.json'],
  '@clat/node-files': ['.', './package.json'],
  '@clat/json-schema': ['.', './meta', './package.json'],
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

/** The value (non-type) names an entry file exports, read with the TypeScript parser. */
function runtimeExports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (statement.isTypeOnly || clause === undefined || !ts.isNamedExports(clause)) continue;
      for (const element of clause.elements) if (!element.isTypeOnly) names.push(element.name.text);
      continue;
    }
    const exported = ts
      .getModifiers(statement as ts.HasModifiers)
      ?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
    if (exported !== true) continue;
    if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) {
      if (statement.name !== undefined) names.push(statement.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text);
      }
    }
  }
  return names;
}

it('every package README names each runtime export of its root and ./testing entry', () => {
  const unnamed: string[] = [];
  let checked = 0;
  for (const base of ['packages', 'apps']) {
    for (const dir of readdirSync(join(ROOT, base))) {
      const readmeFile = join(ROOT, base, dir, 'README.md');
      if (!existsSync(readmeFile)) continue;
      const readme = readFileSync(readmeFile, 'utf8');
      for (const entry of ['src/index.ts', 'src/testing/index.ts']) {
        const file = join(ROOT, base, dir, entry);
        if (!existsSync(file)) continue;
        for (const name of runtimeExports(file)) {
          checked++;
          if (!new RegExp(`\`[^\`]*\\b${name}\\b[^\`]*\``).test(readme)) {
            unnamed.push(`${base}/${dir}/${entry}: ${name}`);
          }
        }
      }
    }
  }
  expect(unnamed).toEqual([]);
  expect(checked).toBeGreaterThan(300);
});

it('every @public tag on an entry export says why the export is public', () => {
  const bare: string[] = [];
  let tags = 0;
  for (const base of ['packages', 'apps']) {
    for (const dir of readdirSync(join(ROOT, base))) {
      for (const entry of ['src/index.ts', 'src/testing/index.ts']) {
        const file = join(ROOT, base, dir, entry);
        if (!existsSync(file)) continue;
        for (const match of readFileSync(file, 'utf8').matchAll(/@public\b([^*\n]*)/g)) {
          tags++;
          if ((match[1] ?? '').trim().length < 8) bare.push(`${base}/${dir}/${entry}: ${match[0]}`);
        }
      }
    }
  }
  expect(bare).toEqual([]);
  expect(tags).toBeGreaterThan(50);
});
