/**
 * WASM tool input schemas through the real `clat` binary: each schema is checked against its
 * meta-schema by the validators generated ahead of time (packages/adapter-wasm/src/gen), bundled
 * into the binary, and compiled by Ajv. A guest built from test/fixtures/wasm/schema-probe.wat
 * declares one tool with an `enum` (whose meta-schema check runs Ajv's bundled deep-equality
 * helper), one whose schema is not a JSON Schema and one whose schema Ajv cannot compile. The
 * first command lists the guest's tools and remembers the list with those verdicts; later
 * commands register from it and compile each schema at its tool's first call.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProbe } from '../wasm/wat.js';
import { useCliSandbox } from './support.js';

const sandbox = useCliSandbox(async () => {
  await sandbox.run(['trust']);
  const component = await buildProbe('schema-probe', join(sandbox.root, 'schema-probe.wasm'));
  await writeFile(
    join(sandbox.home, 'plugins.json'),
    JSON.stringify({ 'schema-probe': { path: component } }),
  );
});

describe('WASM tool schemas in the CLI', () => {
  it('registers the tool whose schema is valid and skips the others with their reasons, again from the remembered list', async () => {
    const tools = await sandbox.run(['tools', '--json']);
    expect(tools.code).toBe(0);
    const names = (JSON.parse(tools.stdout) as { tools: { name: string }[] }).tools.map(
      (tool) => tool.name,
    );
    expect(names).toContain('wasm_schema_probe_pick');
    expect(names).not.toContain('wasm_schema_probe_broken');
    expect(names).not.toContain('wasm_schema_probe_dangling');
    // The second start registers from the list the first one remembered, compiling nothing: the
    // schema that only a compile finds unusable is skipped from the verdict kept with the list.
    const status = await sandbox.run(['mcp']);
    expect(status.stdout).toMatch(/schema-probe\s+wasm\s+connected/);
    expect(status.stdout).toContain(
      'tool "broken" skipped: its input-schema is not a usable JSON Schema (schema is invalid: data/required must NOT have duplicate items',
    );
    expect(status.stdout).toContain(
      `tool "dangling" skipped: its input-schema is not a usable JSON Schema (can't resolve reference #/definitions/missing`,
    );
    const again = await sandbox.run(['tools', '--json']);
    expect(
      (JSON.parse(again.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name),
    ).toEqual(names);
  });

  it('refuses arguments outside the enum before the guest runs, and passes the others', async () => {
    // Remembers the tool list: the calls below register from it and compile at the first call.
    expect((await sandbox.run(['tools'])).code).toBe(0);
    const refused = await sandbox.run(['call', 'wasm_schema_probe_pick', '{"size":"xl"}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'invalid arguments for wasm_schema_probe_pick: field "size" must be one of "s", "m", "l"',
    );
    const picked = await sandbox.run(['call', 'wasm_schema_probe_pick', '{"size":"m"}', '--json']);
    expect(picked.code).toBe(0);
    expect(JSON.parse(picked.stdout)).toMatchObject({ content: 'picked' });
  });
});
