/**
 * A server listing tools whose input schemas cannot be offered (not an object schema, or not valid
 * JSON Schema): each is skipped with a warning naming server, tool and why, through the real
 * binary; the valid tool of the same server works, and `clat exec` offers the model only it. A
 * model API refuses every request whose tools include one broken schema, so before, one such tool
 * failed every model turn of the session.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeModelProvider, startFakeChatServer } from './chat-server.js';
import { parseJsonOutput, STDIO_FIXTURES, useCliSandbox } from './support.js';

const sandbox = useCliSandbox(async () => {
  await sandbox.writeMcp({
    mcpServers: { shapes: sandbox.node(join(STDIO_FIXTURES, 'broken-schema.mjs')) },
  });
});

const SKIPPED = [
  `tool "scalar" of MCP server "shapes" skipped: its input schema has "type": "string", and a tool's arguments are an object ("type": "object")`,
  `tool "typo" of MCP server "shapes" skipped: its input schema is not valid JSON Schema (inputSchema/properties/path/type must be equal to one of the allowed values`,
];

describe('tools whose input schema cannot be offered', () => {
  it('are skipped with the reason in clat mcp; the valid tool is listed and answers', async () => {
    const result = await sandbox.run(['tools', '--json', '--trust']);
    expect(result.code, result.stderr).toBe(0);
    const listed = parseJsonOutput<{ tools: { name: string }[] }>(result);
    const names = listed.tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp_'));
    expect(names).toEqual(['mcp_shapes_good']);
    expect(result.stderr).toBe(
      'clat: 2 tools of server "shapes" were skipped; run "clat mcp --trust" for why\n',
    );

    const status = await sandbox.run(['mcp', '--trust']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/shapes {2}stdio {2}connected .* 1 tool /);
    for (const line of SKIPPED) expect(status.stdout).toContain(`warning: ${line}`);

    const call = await sandbox.run(['call', 'mcp_shapes_good', 'text=hello', '--trust']);
    expect(call.stdout).toBe('good: hello\n');
    expect(call.code).toBe(0);

    // A call of a skipped tool says why it is not there, not only "not registered".
    const skipped = await sandbox.run(['call', 'mcp_shapes_scalar', '{}', '--trust']);
    expect(skipped.code).toBe(1);
    expect(skipped.stderr).toContain(`: ${SKIPPED[0]} [CLI_SERVER_NOT_FOUND]\n`);
  });

  it('are not offered to the model by clat exec', async () => {
    const chat = await startFakeChatServer([{ text: 'Done.' }]);
    try {
      await sandbox.writeConfig({ provider: fakeModelProvider(chat.url, 'E2E_PROVIDER_KEY') });
      const result = await sandbox.run(['exec', 'Use the tools', '--trust'], {
        env: { E2E_PROVIDER_KEY: 'sk-e2e-provider-key-0123456789' },
      });
      expect(result.stdout).toBe('Done.\n');
      expect(result.code).toBe(0);
      const offered = chat.requests[0]?.body.tools?.map((tool) => tool.function.name) ?? [];
      expect(offered).toContain('mcp_shapes_good');
      expect(offered).not.toContain('mcp_shapes_scalar');
      expect(offered).not.toContain('mcp_shapes_typo');
    } finally {
      await chat.close();
    }
  });
});
