/**
 * `docs/reference/clat-plugin-json.md` against the manifest schema it describes: every field of
 * the JSON Schema `@clat/kernel` ships has a row, every enum value is named, every bound of
 * `MANIFEST_LIMITS` appears, and no row names a field the schema does not have. A field added to
 * the schema without its reference, or a limit changed in one place only, fails here.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { MANIFEST_LIMITS, manifestJsonSchema } from '@clat/kernel';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const DOC = `${REPO}docs/reference/clat-plugin-json.md`;

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  enum?: unknown[];
}

/** Section heading → the schema node whose fields that section's table lists. */
function sections(schema: SchemaNode): Record<string, SchemaNode> {
  const top = schema.properties ?? {};
  const userConfig = top.userConfig?.additionalProperties;
  return {
    'Top level': schema,
    '`runtime`': top.runtime as SchemaNode,
    '`capabilities`': top.capabilities as SchemaNode,
    '`prompts`': top.prompts?.items as SchemaNode,
    '`userConfig`': typeof userConfig === 'object' ? userConfig : {},
  };
}

/** The first-column field names of the table under `## <heading>`. */
function rowsUnder(doc: string, heading: string): string[] {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const names: string[] = [];
  for (const line of section.split('\n')) {
    const cell = /^\| ([^|]+) \|/.exec(line)?.[1];
    if (cell === undefined) continue;
    for (const match of cell.matchAll(/`([^`]+)`/g)) names.push(match[1] as string);
  }
  return names;
}

describe('the clat-plugin.json reference', () => {
  it('has a row for each field of the schema, and none for a field it lacks', async () => {
    const doc = await readFile(DOC, 'utf8');
    for (const [heading, node] of Object.entries(sections(manifestJsonSchema() as SchemaNode))) {
      const fields = Object.keys(node.properties ?? {}).sort();
      expect(fields.length, heading).toBeGreaterThan(0);
      expect(rowsUnder(doc, heading).sort(), heading).toEqual(fields);
    }
  });

  it('names every value of each enum and states every bound', async () => {
    const doc = await readFile(DOC, 'utf8');
    const schema = manifestJsonSchema() as SchemaNode;
    const enums: unknown[] = [];
    const visit = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      const { enum: values } = node as SchemaNode;
      if (values !== undefined) enums.push(...values);
      for (const child of Object.values(node)) visit(child);
    };
    visit(schema);
    expect(enums).toContain('wasm-component');
    for (const value of enums) expect(doc).toContain(`\`${String(value)}\``);
    for (const [name, bound] of Object.entries(MANIFEST_LIMITS)) {
      expect(doc, name).toMatch(new RegExp(`\\b${bound}\\b`));
    }
  });
});
