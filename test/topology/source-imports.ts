/**
 * The runtime imports of a workspace's sources, read with the TypeScript parser: import and
 * export declarations (type-only ones skipped) and dynamic `import()` calls.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export interface SourceImport {
  file: string;
  specifier: string;
}

const SOURCE = /\.(ts|mts|js|mjs)$/;
const TEST = /\.test\.(ts|mts|js|mjs)$|(^|\/)test-support(\/|\.)|(^|\/)test-fixtures\./;

/** Source files under `dir` (no node_modules, dist, `.d.ts` or tests). */
export function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => SOURCE.test(file) && !file.endsWith('.d.ts') && !TEST.test(file))
    .filter((file) => !file.split('/').includes('node_modules'))
    .map((file) => join(dir, file));
}

function runtimeDeclaration(node: ts.Node): string | undefined {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (clause?.isTypeOnly === true) return undefined;
    const bindings = clause?.namedBindings;
    if (
      clause !== undefined &&
      clause.name === undefined &&
      bindings !== undefined &&
      ts.isNamedImports(bindings) &&
      bindings.elements.length > 0 &&
      bindings.elements.every((element) => element.isTypeOnly)
    ) {
      return undefined;
    }
    return (node.moduleSpecifier as ts.StringLiteral).text;
  }
  if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && !node.isTypeOnly) {
    return (node.moduleSpecifier as ts.StringLiteral).text;
  }
  return undefined;
}

/** Every runtime import of every source file under `dir`. */
export function runtimeImports(dir: string): SourceImport[] {
  const out: SourceImport[] = [];
  for (const file of sourceFiles(dir)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    const visit = (node: ts.Node): void => {
      const declared = runtimeDeclaration(node);
      if (declared !== undefined) out.push({ file, specifier: declared });
      if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] !== undefined &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        out.push({ file, specifier: node.arguments[0].text });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/** The workspace package an import names (`@clat/kernel/testing` → `@clat/kernel`). */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
