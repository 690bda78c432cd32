import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandIO } from '../command.js';
import { isCliError } from '../errors.js';
import { openProject } from './open-project.js';

let dir = '';
afterEach(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

/** A CLAT home and a project, both empty; `io` runs in the project. */
function sandbox(): { home: string; project: string; io: CommandIO } {
  dir = mkdtempSync(join(tmpdir(), 'clat-open-project-'));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(project);
  const io: CommandIO = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: { CLAT_HOME: home },
    cwd: project,
  };
  return { home, project, io };
}

async function failure(opened: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await opened.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isCliError(error)) throw new Error(`expected a CliError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

describe('openProject', () => {
  // The user's files are read while trust is checked: their errors must still come second.
  it('reports an untrusted project before a broken config.json or mcp.json', async () => {
    const { home, io } = sandbox();
    writeFileSync(join(home, 'config.json'), '{ not json');
    writeFileSync(join(home, 'mcp.json'), '{ not json either');
    const error = await failure(openProject(io, {}));
    expect(error.code).toBe('CLI_PROJECT_UNTRUSTED');
  });

  it('reports a broken config.json of a trusted project, naming the file', async () => {
    const { home, io } = sandbox();
    writeFileSync(join(home, 'config.json'), '{ not json');
    const error = await failure(openProject(io, { trust: true }));
    expect(error.code).toBe('CLI_CONFIG_INVALID');
    expect(error.message).toContain(join(home, 'config.json'));
  });

  it('merges the project mcp.json under the user file, the user entry winning a shared name', async () => {
    const { home, project, io } = sandbox();
    const server = (args: string[]) => ({ command: process.execPath, args });
    writeFileSync(join(home, 'mcp.json'), JSON.stringify({ both: server(['user']) }));
    mkdirSync(join(project, '.clat'));
    writeFileSync(
      join(project, '.clat', 'mcp.json'),
      JSON.stringify({ both: server(['project']), local: server(['local']) }),
    );
    const opened = await openProject(io, { trust: true });
    try {
      expect(opened.sourceNotes.join('\n')).toContain(
        'entry "both" is replaced by the same-named entry',
      );
      expect(opened.configIssues).toEqual([]);
    } finally {
      await opened.session.close();
    }
  });
});
