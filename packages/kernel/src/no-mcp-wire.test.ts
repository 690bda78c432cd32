import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The kernel is runtime-neutral and wire-neutral: JSON-RPC and MCP (methods, error codes, the
// `io.artec.clat/*` extension, mcp.json) live in @clat/adapter-mcp. This reads every source file
// outside tests, comments included, so a wire name cannot creep back in through a doc line either.
const SRC = fileURLToPath(new URL('.', import.meta.url));

const WIRE = [
  /\bjsonrpc\b/i,
  /JSON-RPC/,
  /\b-32[0-9]{3}\b/,
  /\b(?:initialize|initialized|ping)\b['"`]/,
  /\b(?:tools|prompts|resources|roots|completion|logging)\/[a-z]+/,
  /\b(?:sampling\/createMessage|elicitation\/create|server\/discover)\b/,
  /\bnotifications\/[a-z]+/,
  /io\.artec\.clat\//,
  /Mcp-(?:Param|Protocol|Session)/i,
  /mcp\.json/,
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('kernel carries no MCP wire', () => {
  it('has no JSON-RPC or MCP method names, codes or headers outside tests', () => {
    const hits: string[] = [];
    for (const file of sources(SRC)) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (WIRE.some((pattern) => pattern.test(line))) {
            hits.push(`${relative(SRC, file)}:${index + 1}: ${line.trim()}`);
          }
        });
    }
    expect(hits).toEqual([]);
  });

  it('the probe finds a wire name when one is there', () => {
    const probe = "await peer.request('tools/list', {}) // JSON-RPC -32601";
    expect(WIRE.filter((pattern) => pattern.test(probe)).length).toBeGreaterThan(0);
  });
});
