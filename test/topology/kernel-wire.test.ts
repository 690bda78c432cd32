/**
 * The kernel is runtime- and protocol-neutral: its sources (tests aside) name no JSON-RPC or MCP
 * method. The MCP wire lives in @clat/adapter-mcp; a method name appearing in the kernel means
 * protocol logic leaked back in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const KERNEL_SRC = join(ROOT, 'packages', 'kernel', 'src');

// Quoted method names of JSON-RPC and MCP (both eras) and the `jsonrpc` envelope key.
const WIRE = [
  /['"`]jsonrpc['"`]/,
  /['"`]initialize['"`]/,
  /['"`]server\/discover['"`]/,
  /['"`]notifications\/[a-z_/]+['"`]/,
  /['"`](tools|prompts|resources|roots)\/[a-z_/]+['"`]/,
  /['"`](sampling\/createMessage|elicitation\/create|completion\/complete|logging\/setLevel)['"`]/,
  /['"`]io\.artec\.clat\/[a-z_/]+['"`]/,
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(
      (entry) =>
        entry.isFile() &&
        entry.name.endsWith('.ts') &&
        !/\.test\.ts$|\.bench\.ts$/.test(entry.name),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

/** `file:line: text` for every line naming a wire method. */
function wireMentions(files: readonly string[]): string[] {
  const hits: string[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (WIRE.some((pattern) => pattern.test(line))) {
        hits.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
      }
    });
  }
  return hits;
}

describe('the kernel speaks no wire protocol', () => {
  it('scans a non-trivial set of kernel sources (a guard against a silently empty scan)', () => {
    expect(sources(KERNEL_SRC).length).toBeGreaterThan(20);
  });

  it('the patterns catch a method name (a guard against patterns that cannot match)', () => {
    expect(WIRE.some((pattern) => pattern.test(`method: 'tools/call'`))).toBe(true);
    expect(WIRE.some((pattern) => pattern.test(`{ jsonrpc: '2.0' } as "jsonrpc"`))).toBe(true);
  });

  it('names no JSON-RPC or MCP method outside its tests', () => {
    expect(wireMentions(sources(KERNEL_SRC))).toEqual([]);
  });
});
