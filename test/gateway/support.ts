/** A throwaway CLAT home and project for driving the real `clat-gateway` binary. @module */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const GATEWAY_BIN = join(REPO, 'apps/clat-gateway/bin/clat-gateway.js');
export const EVERYTHING = join(
  REPO,
  'test/node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

export interface GatewayWorld {
  home: string;
  project: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** A home with server-everything in mcp.json and, unless `trusted` is false, a trusted project. */
export async function gatewayWorld(options: { trusted?: boolean } = {}): Promise<GatewayWorld> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'clat-gateway-')));
  const home = join(base, 'home');
  const project = join(base, 'project');
  await mkdir(home, { recursive: true, mode: 0o700 });
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'notes.txt'), 'gateway notes\n');
  await writeFile(
    join(home, 'mcp.json'),
    JSON.stringify({
      everything: {
        command: process.execPath,
        args: [EVERYTHING, 'stdio'],
        env: { EVERYTHING_TOKEN: 'sk-gateway-secret-1234' },
      },
    }),
  );
  if (options.trusted !== false) {
    await writeFile(
      join(home, 'trust.json'),
      JSON.stringify({
        version: 1,
        projects: { [project]: { trustedAt: new Date().toISOString() } },
      }),
      { mode: 0o600 },
    );
  }
  return {
    home,
    project,
    env: { PATH: process.env.PATH ?? '', CLAT_HOME: home },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
