/**
 * The minimal distribution (`apps/clat-mcp-only`: kernel + MCP core + stdio + HTTP + native
 * tools) as its users run it: the real bin against the real npm server-memory package.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const APP = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'clat-mcp-only');
const BIN = join(APP, 'bin', 'clat-mcp-only.js');
const MEMORY = join(
  dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
  'dist',
  'index.js',
);

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

let root: string;
let project: string;
let config: string;

function run(args: string[]): Promise<Exit> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args, '--config', config, '--project', project],
      { cwd: project, env: { PATH: process.env.PATH ?? '', MEMORY_DIR: root }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({
          code: typeof error?.code === 'number' ? error.code : error ? 1 : 0,
          stdout,
          stderr,
        });
      },
    );
  });
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'clat-mcp-only-'));
  project = join(root, 'project');
  config = join(root, 'mcp.json');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# a project\n');
  const servers = {
    // `${VAR}` is expanded at mount, as `clat` does (the file lands in the root, not in
    // a directory literally named "${MEMORY_DIR}").
    memory: {
      command: process.execPath,
      args: [MEMORY],
      env: { MEMORY_FILE_PATH: '${MEMORY_DIR}/memory.jsonl' },
    },
    broken: { command: join(root, 'no-such-server') },
    off: { command: join(root, 'never-started'), disabled: true },
    unset: { command: process.execPath, args: [MEMORY], env: { TOKEN: '${NOT_SET_HERE}' } },
  };
  writeFileSync(config, JSON.stringify({ mcpServers: servers }, null, 2));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('clat-mcp-only', () => {
  it('lists the native tools and the real server tools; a broken server fails alone', async () => {
    const listed = await run(['tools']);
    // What started is listed; the broken server makes it exit 1, as the README's exit codes say.
    expect(listed.code).toBe(1);
    expect(listed.stdout).toMatch(/^read_file {2}\(read\)/m);
    expect(listed.stdout).toMatch(/^mcp_memory_create_entities {2}\(/m);
    expect(listed.stderr).toMatch(/clat-mcp-only: broken: .*no-such-server/);
    // A disabled entry is not started; one with an unset variable is an issue naming the field.
    expect(listed.stderr).not.toContain('never-started');
    expect(listed.stderr).toMatch(
      /clat-mcp-only: config: .*mcp\.json: unset\.env\.TOKEN: .*NOT_SET_HERE/,
    );
    expect(listed.stdout).not.toContain('mcp_unset_');

    const json = await run(['tools', '--json']);
    const names = (JSON.parse(json.stdout) as { name: string }[]).map((tool) => tool.name);
    expect(names).toContain('mcp_memory_read_graph');
    expect(names).toContain('write_file');
  });

  it('calls a server tool through the permission pipeline, across processes', async () => {
    const entity = { name: 'clat', entityType: 'project', observations: ['composed'] };
    const denied = await run([
      'call',
      'mcp_memory_create_entities',
      JSON.stringify({ entities: [entity] }),
      '--mode',
      'read-only',
    ]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/not approved: .*\[PERMISSION_DENIED\]/);

    const created = await run([
      'call',
      'mcp_memory_create_entities',
      JSON.stringify({ entities: [entity] }),
      '--mode',
      'full-access',
    ]);
    expect(created.stderr).not.toMatch(/PERMISSION_DENIED/);
    expect(created.code).toBe(0);

    // read_graph is read-only but open-world (external-read): asked about in read-only mode,
    // so denied headless; the README's call names --mode project-write.
    const asked = await run(['call', 'mcp_memory_read_graph', '{}', '--json']);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain('external-read needs approval and no approver is attached');
    const graph = await run([
      'call',
      'mcp_memory_read_graph',
      '{}',
      '--json',
      '--mode',
      'project-write',
    ]);
    expect(graph.code).toBe(0);
    const result = JSON.parse(graph.stdout) as { content: string };
    expect(result.content).toContain('composed');
    expect(readFileSync(join(root, 'memory.jsonl'), 'utf8')).toContain('"clat"');
  });

  it('runs a native tool in the project and names bad input', async () => {
    const read = await run(['call', 'read_file', '{"path":"README.md"}']);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('a project');
    const bad = await run(['call', 'read_file', '{not json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('clat-mcp-only: the arguments of read_file are not valid JSON\n');
  });

  it('does not depend on @clat/cli, WASM, GLM or packaging', () => {
    const manifest = JSON.parse(readFileSync(join(APP, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@clat/adapter-mcp',
      '@clat/adapter-mcp-http',
      '@clat/adapter-mcp-stdio',
      '@clat/kernel',
      '@clat/native-tools',
      'zod',
    ]);
  });
});
