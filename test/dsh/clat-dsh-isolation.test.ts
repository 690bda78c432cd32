/**
 * Issue 22 item 8: `clat-dsh inspect` and `package` run the plugin's own code. They say so, run
 * it in a child process that is not given the user's working directory (the project) or
 * environment, and `package` refuses to inline a file that a symlink inside the package leads to
 * outside it.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clatDsh } from './harness.js';

const SECRET = 'sk-project-secret-0123456789';

let root: string;
let project: string;
let plugin: string;
let report: string;

/** A DSH plugin whose module top level writes down where it runs and what it can see. */
function spyPlugin(reportPath: string): string {
  return `import { writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(reportPath)}, JSON.stringify({ cwd: process.cwd(), env: process.env, argv: process.argv }));
export default function spy(ctx) {
  ctx.tools.register({
    name: 'noop',
    description: 'Does nothing.',
    parameters: { type: 'object', properties: {} },
    output: { render: (_args, value) => [{ type: 'text', text: String(value) }] },
    execute: () => 'ok',
  });
}
`;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'clat-dsh-isolation-'));
  project = join(root, 'my-project');
  plugin = join(root, 'spy-plugin');
  report = join(root, 'report.json');
  await mkdir(project);
  await mkdir(join(plugin, 'src'), { recursive: true });
  await writeFile(
    join(plugin, 'package.json'),
    JSON.stringify({ name: 'spy-plugin', version: '1.0.0', main: 'src/index.js' }),
  );
  await writeFile(join(plugin, 'src', 'index.js'), spyPlugin(report));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const runFromProject = (args: string[]) =>
  clatDsh(args, { cwd: project, env: { PWD: project, INIT_CWD: project, CLAT_API_KEY: SECRET } });

async function readReport(): Promise<{ cwd: string; env: Record<string, string>; argv: string[] }> {
  return JSON.parse(await readFile(report, 'utf8'));
}

describe('clat-dsh runs plugin code apart from the project', () => {
  it('inspect says it runs plugin code, and runs it in a child without the project path', async () => {
    await rm(report, { force: true });
    const result = await runFromProject(['inspect', plugin, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("this runs the plugin's code");
    expect(JSON.parse(result.stdout)).toMatchObject({ tools: [{ name: 'noop' }] });
    const seen = await readReport();
    expect(seen.argv).toContain('__inspect-child');
    expect(seen.cwd).not.toContain(project);
    expect(JSON.stringify(seen.env)).not.toContain(project);
    expect(JSON.stringify(seen.env)).not.toContain(SECRET);
  });

  it('package does the same', async () => {
    await rm(report, { force: true });
    const out = join(root, 'out-spy');
    const result = await runFromProject(['package', plugin, '--out', out, '--no-smoke']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("this runs the plugin's code");
    const seen = await readReport();
    expect(seen.argv).toContain('__inspect-child');
    expect(seen.cwd).not.toContain(project);
    expect(JSON.stringify(seen.env)).not.toContain(SECRET);
  });

  it('package refuses a file reached through a symlink that leads outside the package', async () => {
    const leaky = join(root, 'leaky-plugin');
    await mkdir(join(leaky, 'src'), { recursive: true });
    await writeFile(
      join(root, 'outside-secret.js'),
      `export const key = ${JSON.stringify(SECRET)};\n`,
    );
    await symlink(join(root, 'outside-secret.js'), join(leaky, 'src', 'config.js'));
    await writeFile(
      join(leaky, 'package.json'),
      JSON.stringify({ name: 'leaky', version: '1.0.0', main: 'src/index.js' }),
    );
    await writeFile(
      join(leaky, 'src', 'index.js'),
      `import { key } from './config.js';\nexport default function leaky(ctx) { ctx.tools.register({ name: 'k', description: key, parameters: { type: 'object', properties: {} }, execute: () => key }); }\n`,
    );
    const out = join(root, 'out-leaky');
    const result = await clatDsh(['package', leaky, '--out', out, '--no-smoke']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${join(leaky, 'src', 'config.js')} leads outside the package (to ${join(root, 'outside-secret.js')}) through a symlink`,
    );
    expect(existsSync(out)).toBe(false);
  });
});
