/**
 * A server listing a tool whose input schema nests 20,000 levels (and answering prompts/get and
 * resources/read with JSON as deep): the tool is skipped at registration with a warning naming
 * server and tool, so `clat tools --json` prints valid JSON; the deep prompt and resource are
 * refused with the stated limit. Before, each of these ended in "unexpected error: Maximum call
 * stack size exceeded".
 */
import { join } from 'node:path';
import { LIMITS } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { parseJsonOutput, STDIO_FIXTURES, useCliSandbox } from './support.js';

interface ToolsJson {
  tools: { name: string }[];
  diagnostics: { name: string; code: string; message: string }[];
}

const sandbox = useCliSandbox(async () => {
  await sandbox.writeMcp({
    mcpServers: { deep: sandbox.node(join(STDIO_FIXTURES, 'deep-schema.mjs')) },
  });
});

const skipped = `tool "deep" of "deep" skipped: input schema of tool "mcp_deep_deep" nests more than ${LIMITS.toolSchemaDepth} levels deep (the limit); mcp:deep cannot register it`;

describe('a tool schema nested 20,000 levels deep', () => {
  it('is left out of clat tools --json, which stays valid JSON, and clat mcp names it', async () => {
    const result = await sandbox.run(['tools', '--json', '--trust']);
    expect(result.code, result.stderr).toBe(0);
    const tools = parseJsonOutput<ToolsJson>(result);
    const names = tools.tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp_'));
    expect(names).toEqual(['mcp_deep_flat']);
    expect(tools.diagnostics).toEqual([
      expect.objectContaining({ name: 'mcp_deep_deep', code: 'LIMIT_EXCEEDED' }),
    ]);
    // Both listings say, on stderr, that a tool is missing from them and where to see why.
    const missing = 'clat: 1 tool of server "deep" was skipped; run "clat mcp --trust" for why\n';
    expect(result.stderr).toBe(missing);
    const text = await sandbox.run(['tools', '--trust']);
    expect(text.stderr).toBe(missing);
    const status = await sandbox.run(['mcp', '--trust']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/deep {2}stdio {2}connected .* 1 tool, 1 prompt /);
    expect(status.stdout).toContain(`warning: ${skipped}`);
  });

  it('a prompt or resource answered as deep is refused with the limit, with or without --json', async () => {
    const limit = `nested more than ${LIMITS.toolResultDepth} levels deep (the limit) [MCP_RESULT_TOO_LARGE]`;
    for (const json of [[], ['--json']]) {
      const prompt = await sandbox.run(['prompts', 'get', 'deep', 'deep', ...json, '--trust']);
      expect(prompt.code).toBe(1);
      expect(prompt.stderr).toContain(`prompt "deep" of MCP server "deep" returned JSON ${limit}`);
      const read = await sandbox.run([
        'resources',
        'read',
        'deep',
        'memo://deep',
        ...json,
        '--trust',
      ]);
      expect(read.code).toBe(1);
      expect(read.stderr).toContain(
        `resource "memo://deep" of MCP server "deep" returned JSON ${limit}`,
      );
    }
  });
});
