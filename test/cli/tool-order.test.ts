/**
 * `clat tools` lists the same configuration the same way every run (a CI snapshot of
 * `clat tools --json` must not depend on which server answered first): native tools, then the
 * servers in configuration order, each server's tools in the order it listed them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectInOrder, parseJsonOutput, STDIO_FIXTURES, useCliSandbox } from './support.js';

const SLOW_LIST = join(STDIO_FIXTURES, 'slow-list.mjs');

const sandbox = useCliSandbox(async () => {
  // The first server answers tools/list well after the second: registration order is the
  // reverse of the configuration's.
  await sandbox.writeMcp({
    mcpServers: {
      slow: { ...sandbox.node(SLOW_LIST), env: { SLOW_LIST_MS: '1500', SLOW_TOOL: 'late_one' } },
      fast: { ...sandbox.node(SLOW_LIST), env: { SLOW_LIST_MS: '0', SLOW_TOOL: 'early_one' } },
    },
  });
  await sandbox.run(['trust']);
});

describe('clat tools order', () => {
  it('is native tools, then servers in configuration order, whichever answered first', async () => {
    const json = await sandbox.run(['tools', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const tools = parseJsonOutput<{ tools: { name: string; source: { kind: string } }[] }>(
      json,
    ).tools;
    const firstServerTool = tools.findIndex((tool) => tool.source.kind !== 'native');
    expect(firstServerTool).toBeGreaterThan(0);
    expect(tools.slice(firstServerTool).map((tool) => tool.name)).toEqual([
      'mcp_slow_late_one',
      'mcp_fast_early_one',
    ]);
    expect(tools.slice(0, firstServerTool).every((tool) => tool.source.kind === 'native')).toBe(
      true,
    );

    const text = await sandbox.run(['tools']);
    expect(text.code, text.stderr).toBe(0);
    expectInOrder(text.stdout, ['read_file', 'mcp_slow_late_one', 'mcp_fast_early_one']);
  });
});
