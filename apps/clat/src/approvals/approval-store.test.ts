import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliErrorCode, isCliError } from '../errors.js';
import { ApprovalStore } from './approval-store.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const AT = '2026-12-01T10:00:00.000Z';

/** A file a newer CLAT (or a person) wrote: fields and entries this CLAT does not know. */
const FOREIGN = {
  version: 1,
  defaults: { ask: 'always' },
  projects: {
    '/work/app': {
      mcp_notes_delete_note: { effect: 'destructive', digest: DIGEST, at: AT, scope: 'repo' },
      run_command: {
        effect: 'execute',
        digest: DIGEST,
        at: AT,
        expiresAt: '2027-01-01T00:00:00.000Z',
        rule: { command: 'npm test' },
      },
      mcp_git_push: { effect: 'write', digestV2: 'blake3:abc', at: AT },
    },
    '/work/other': {
      write_file: { effect: 'write', digest: DIGEST, at: AT, note: 'kept' },
      mcp_newer: { effectV2: 'write' },
    },
  },
};

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-approvals-'));
  file = join(dir, 'approvals.json');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function thrown(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('ApprovalStore', () => {
  it('reset of one tool removes that key and keeps every other field, entry and project', async () => {
    await writeFile(file, `${JSON.stringify(FOREIGN, null, 2)}\n`);
    const store = new ApprovalStore(file);
    expect(await store.reset('/work/app', 'mcp_notes_delete_note')).toBe(1);
    const expected = structuredClone(FOREIGN) as {
      projects: Record<string, Record<string, unknown>>;
    };
    delete expected.projects['/work/app']?.mcp_notes_delete_note;
    expect(await readFile(file, 'utf8')).toBe(`${JSON.stringify(expected, null, 2)}\n`);
  });

  it('saving an answer adds one key and keeps the rest, in the file’s own layout', async () => {
    await writeFile(file, JSON.stringify(FOREIGN, null, '\t').replaceAll('\n', '\r\n'));
    const store = new ApprovalStore(file);
    await store.save('/work/app', { tool: 'search', effect: 'read', digest: DIGEST, at: AT });
    await store.save('/work/new', { tool: 'search', effect: 'read', digest: DIGEST, at: AT });
    const expected = structuredClone(FOREIGN) as {
      projects: Record<string, Record<string, unknown>>;
    };
    const saved = { effect: 'read', digest: DIGEST, at: AT };
    (expected.projects['/work/app'] as Record<string, unknown>).search = saved;
    expected.projects['/work/new'] = { search: saved };
    expect(await readFile(file, 'utf8')).toBe(
      `${JSON.stringify(expected, null, '\t').replaceAll('\n', '\r\n')}\r\n`,
    );
  });

  it('lists what it can read, names what it cannot, and applies only what it can read', async () => {
    await writeFile(
      file,
      JSON.stringify({ ...FOREIGN, projects: { ...FOREIGN.projects, '/x': 3 } }),
    );
    const store = new ApprovalStore(file);
    const listing = await store.list(undefined);
    expect(listing.approvals.map((entry) => `${entry.project} ${entry.tool}`)).toEqual([
      '/work/app mcp_notes_delete_note',
      '/work/app run_command',
      '/work/other write_file',
    ]);
    expect(listing.unreadable).toEqual([
      { project: '/work/app', tool: 'mcp_git_push' },
      { project: '/work/other', tool: 'mcp_newer' },
      { project: '/x' },
    ]);
    expect((await store.list('/work/other')).unreadable).toEqual([
      { project: '/work/other', tool: 'mcp_newer' },
    ]);
    expect(await store.allows('/work/app', 'run_command', 'execute', DIGEST)).toBe(true);
    expect(await store.allows('/work/app', 'mcp_git_push', 'write', DIGEST)).toBe(false);
    expect(await store.allows('/work/app', 'toString', 'write', DIGEST)).toBe(false);
  });

  it('reset of a whole project forgets all of its entries and only its own', async () => {
    await writeFile(file, JSON.stringify(FOREIGN));
    const store = new ApprovalStore(file);
    expect(await store.reset('/work/app')).toBe(3);
    const left = JSON.parse(await readFile(file, 'utf8'));
    expect(left).toEqual({
      ...FOREIGN,
      projects: { '/work/other': FOREIGN.projects['/work/other'] },
    });
  });

  it('refuses a file of a newer format without changing it, saying a newer CLAT wrote it', async () => {
    const text = JSON.stringify({ version: 2, projects: {} });
    await writeFile(file, text);
    const store = new ApprovalStore(file);
    for (const run of [
      () => store.list(undefined),
      () => store.allows('/p', 't', 'read', DIGEST),
      () => store.save('/p', { tool: 't', effect: 'read', digest: DIGEST, at: AT }),
      () => store.reset(undefined),
    ]) {
      const error = await thrown(run);
      expect(isCliError(error) && error.code).toBe(CliErrorCode.CLI_CONFIG_INVALID);
      expect(error.message).toBe(
        `${file}: "version": 2 was written by a newer CLAT, which this one (format 1) cannot read or change; update CLAT to use the approvals saved there`,
      );
    }
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('refuses to rewrite a file with a duplicate key, which would lose one of them', async () => {
    const text = `{"version":1,"projects":{"/p":{"a":{"effect":"read","digest":"${DIGEST}","at":"${AT}"}},"/p":{}}}`;
    await writeFile(file, text);
    const error = await thrown(() =>
      new ApprovalStore(file).save('/q', { tool: 't', effect: 'read', digest: DIGEST, at: AT }),
    );
    expect(error.message).toBe(
      `${file}: duplicate key projects./p; remove the duplicates by hand, so no approval is lost when CLAT writes the file`,
    );
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('creates the file with the first answer, and a reset with no file writes none', async () => {
    const store = new ApprovalStore(file);
    expect(await store.reset(undefined)).toBe(0);
    await expect(readFile(file, 'utf8')).rejects.toThrow(/ENOENT/);
    await store.save('/p', { tool: 't', effect: 'read', digest: DIGEST, at: AT });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      version: 1,
      projects: { '/p': { t: { effect: 'read', digest: DIGEST, at: AT } } },
    });
  });
});
