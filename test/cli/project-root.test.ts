/**
 * Started in a subdirectory, every `clat` command uses the project around it: the nearest
 * directory above that is trusted or holds `.clat/mcp.json` (apps/clat/src/config/project-root.ts).
 * Through the real binary: a subdirectory of a trusted project asks nothing and mounts the
 * project's own servers (prestarted like the root's), an untrusted one names the project and the
 * command that trusts it, and that command, typed in the subdirectory, trusts the project.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESTART_TAG, STDIO_FIXTURES, spawnedTags, useCliSandbox } from './support.js';

let spawnLog: string;

const sandbox = useCliSandbox(async () => {
  spawnLog = join(sandbox.root, 'spawns.log');
  await writeFile(spawnLog, '');
});

/** A project at `<sandbox project>/<name>` whose own .clat/mcp.json has one legacy server. */
async function projectWithServer(name: string): Promise<{ root: string; sub: string }> {
  const root = join(sandbox.project, name);
  const sub = join(root, 'src', 'lib');
  await mkdir(sub, { recursive: true });
  await mkdir(join(root, '.clat'), { recursive: true });
  const server = {
    ...sandbox.node(join(STDIO_FIXTURES, 'legacy.mjs')),
    env: { CLAT_FIXTURE_SPAWN_LOG: spawnLog },
  };
  await writeFile(join(root, '.clat', 'mcp.json'), JSON.stringify({ local: server }));
  return { root, sub };
}

describe('the project of a subdirectory', () => {
  it('is the trusted project above it: no question, its own servers, prestarted', async () => {
    const { root, sub } = await projectWithServer('trusted');
    const trusted = await sandbox.run(['trust'], { cwd: root });
    expect(trusted.stdout).toBe(`Trusted: ${root}\n`);

    const tools = await sandbox.run(['tools'], { cwd: sub, timeoutMs: 60_000 });
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('mcp_local_echo');
    const again = await sandbox.run(['tools'], { cwd: sub, timeoutMs: 60_000 });
    expect(again.code, again.stderr).toBe(0);
    // The second start knows the era: its one process came from the pre-loader, which found the
    // same project as the full load (else it would have spawned nothing, or another process).
    const tags = await spawnedTags(spawnLog);
    expect(tags.at(-1)).toMatch(PRESTART_TAG);
    expect(tags).toHaveLength(3);

    const listed = await sandbox.run(['mcp', 'list'], { cwd: sub });
    expect(listed.stdout).toContain(`${join(root, '.clat', 'mcp.json')} (the project's own)`);
    const session = await sandbox.run(['chat'], { cwd: sub, input: '/exit\n' });
    expect(session.stdout).toContain(`clat — project ${root} (`);
  });

  it('names the untrusted project above it, and "clat trust" typed there trusts that project', async () => {
    const { root, sub } = await projectWithServer('untrusted');
    const refused = await sandbox.run(['tools'], { cwd: sub });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      `project ${root} is not trusted, so no MCP server was started; run "clat trust ${root}", or pass --trust`,
    );
    // From elsewhere with -C: the command named trusts that project, wherever it is typed.
    const fromElsewhere = await sandbox.run(['tools', '-C', sub], { cwd: sandbox.root });
    expect(fromElsewhere.stderr).toContain(`run "clat trust ${root}"`);
    expect(await spawnedTags(spawnLog)).toEqual([]);

    const trusted = await sandbox.run(['trust'], { cwd: sub });
    expect(trusted.stdout).toBe(`Trusted: ${root}\n`);
    const tools = await sandbox.run(['tools'], { cwd: sub, timeoutMs: 60_000 });
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('mcp_local_echo');

    // A directory named is trusted as named; --remove here revokes the project's trust.
    const named = await sandbox.run(['trust', '.'], { cwd: sub });
    expect(named.stdout).toBe(`Trusted: ${sub}\n`);
    const removed = await sandbox.run(['trust', '--remove'], { cwd: join(root, 'src') });
    expect(removed.stdout).toBe(`Trust revoked: ${root}\n`);
    const list = await sandbox.run(['trust', '--list']);
    expect(list.stdout.split('\n')).toContain(sub);
    expect(list.stdout.split('\n')).not.toContain(root);
  });

  it('is the directory itself when nothing above it is a project', async () => {
    const plain = join(sandbox.project, 'plain', 'src');
    await mkdir(plain, { recursive: true });
    const trusted = await sandbox.run(['trust'], { cwd: plain });
    expect(trusted.stdout).toBe(`Trusted: ${plain}\n`);
  });
});

describe('a file named as the project', () => {
  it('is refused by -C and by "clat trust", which records nothing', async () => {
    const file = join(sandbox.project, 'afile');
    await writeFile(file, '');
    const refusal = `project directory "${file}" is not a directory; name the project's directory, such as ${sandbox.project}`;
    const tools = await sandbox.run(['tools', '-C', file]);
    expect(tools.code).toBe(2);
    expect(tools.stderr).toContain(refusal);
    const trust = await sandbox.run(['trust', file]);
    expect(trust.code).toBe(2);
    expect(trust.stderr).toContain(refusal);
    expect((await sandbox.run(['trust', '--list'])).stdout).toBe('');
    const again = await sandbox.run(['tools', '-C', file]);
    expect(again.stderr).toContain(refusal);
  });
});

describe('a project whose name holds a newline', () => {
  it('is one line in "clat trust" and its --list, and in "clat mcp add --scope project"', async () => {
    const root = join(sandbox.project, 'nl\n/root/secret');
    await mkdir(root, { recursive: true });
    const shown = JSON.stringify(root);
    const trusted = await sandbox.run(['trust', root]);
    expect(trusted.stdout).toBe(`Trusted: ${shown}\n`);
    const list = await sandbox.run(['trust', '--list']);
    expect(list.stdout).toBe(`${shown}\n`);
    const added = await sandbox.run(
      ['mcp', 'add', 'local', '--scope', 'project', '--', 'node', 'server.mjs'],
      { cwd: root },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(
      `Added stdio server "local" to ${JSON.stringify(join(root, '.clat', 'mcp.json'))};`,
    );
    expect(added.stdout).not.toContain('\n/root/secret');
    const removed = await sandbox.run(['trust', '--remove', root]);
    expect(removed.stdout).toBe(`Trust revoked: ${shown}\n`);
  });
});
