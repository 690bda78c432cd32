import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LIMITS } from '@clat/kernel';
import { ScriptedApprover, ScriptedAsker } from '@clat/kernel/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNativeTools, NATIVE_TOOL_NAMES } from './index.js';
import { NATIVE_LIMITS } from './limits.js';
import { type Harness, harness, PLUGIN, runContext, tempDirs } from './test-support.js';

const dirs = tempDirs();
let root: string;
let outside: string;
let h: Harness;

beforeEach(async () => {
  root = await dirs.make();
  outside = await dirs.make('clat-native-out-');
  await mkdir(join(root, 'src/nested'), { recursive: true });
  await mkdir(join(root, 'node_modules/pkg'), { recursive: true });
  await writeFile(join(root, 'README.md'), '# Title\nhello world\nHello again\n');
  await writeFile(join(root, 'src/a.ts'), 'export const a = 1;\n// TODO first\n');
  await writeFile(join(root, 'src/nested/b.ts'), 'export const b = 2; // todo second\n');
  await writeFile(join(root, 'src/nested/c.js'), 'todo third\n');
  await writeFile(join(root, 'node_modules/pkg/index.js'), 'todo skipped\n');
  await writeFile(join(root, '.hidden'), 'todo hidden\n');
  await writeFile(join(root, 'ignored.log'), 'todo ignored\n');
  await writeFile(join(root, '.gitignore'), '*.log\n');
  await writeFile(join(root, 'bin.dat'), Buffer.from([0x74, 0x6f, 0x64, 0x6f, 0, 1, 2]));
  await writeFile(join(outside, 'secret.txt'), 'todo secret\n');
  await symlink(outside, join(root, 'escape'));
  h = harness(root);
});
afterEach(() => dirs.cleanup());

describe('createNativeTools', () => {
  it('returns the seven tools with their effects and object schemas', () => {
    const tools = createNativeTools({ projectRoot: root });
    expect(tools.map((t) => t.definition.name)).toEqual([...NATIVE_TOOL_NAMES]);
    expect(Object.fromEntries(tools.map((t) => [t.definition.name, t.definition.effect]))).toEqual({
      list_files: 'read',
      read_file: 'read',
      search: 'read',
      write_file: 'write',
      edit_file: 'write',
      run_command: 'execute',
      ask_user: 'pure',
    });
    for (const tool of tools) {
      expect(tool.definition.source).toEqual({ kind: 'native', id: '' });
      expect(tool.definition.inputSchema).toMatchObject({
        type: 'object',
        additionalProperties: false,
      });
    }
  });

  it('refuses a relative project root', () => {
    expect(() => createNativeTools({ projectRoot: 'relative/dir' })).toThrow(/must be absolute/);
  });
});

describe('list_files', () => {
  it('lists breadth-first, sorted, skipping dependency directories and never following symlinks', async () => {
    const out = await h.ok<{ entries: { path: string; kind: string }[] }>('list_files', {});
    const paths = out.entries.map((e) => e.path);
    expect(paths).toContain('src/nested');
    expect(paths).not.toContain('src/nested/b.ts');
    expect(paths.some((p) => p.startsWith('node_modules'))).toBe(false);
    expect(out.entries.find((e) => e.path === 'escape')?.kind).toBe('symlink');
    expect(paths.some((p) => p.startsWith('escape/'))).toBe(false);
    expect(paths.indexOf('README.md')).toBeLessThan(paths.indexOf('src/a.ts'));
  });

  it('bounds entries and reports truncation', async () => {
    const out = await h.ok<{ entries: unknown[]; truncated: boolean }>('list_files', {
      max_entries: 2,
    });
    expect(out.entries).toHaveLength(2);
    expect(out.truncated).toBe(true);
  });

  it('rejects bad arguments by name and paths outside the project', async () => {
    expect(await h.failure('list_files', { max_depth: 99 })).toBe('NATIVE_INVALID_ARGUMENTS');
    expect(await h.failure('list_files', { depth: 1 })).toBe('NATIVE_INVALID_ARGUMENTS');
    expect(await h.failure('list_files', { path: '..' })).toBe('HOST_PATH_OUTSIDE_PROJECT');
    expect(await h.failure('list_files', { path: 'escape' })).toBe('HOST_PATH_OUTSIDE_PROJECT');
    expect(await h.failure('list_files', { path: outside }, { requestedBy: PLUGIN })).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
  });
});

describe('read_file', () => {
  it('returns numbered lines and honours the line range', async () => {
    const out = await h.ok('read_file', { path: 'README.md', start_line: 2, end_line: 3 });
    expect(out).toEqual({
      path: 'README.md',
      start_line: 2,
      end_line: 3,
      content: '2 | hello world\n3 | Hello again\n',
      truncated: false,
    });
  });

  it('stops at max_bytes and sets truncated', async () => {
    const out = await h.ok<{ content: string; truncated: boolean; end_line: number }>('read_file', {
      path: 'README.md',
      max_bytes: 20,
    });
    expect(out).toMatchObject({ content: '1 | # Title\n', truncated: true, end_line: 1 });
  });

  it('refuses binary files, directories, symlink escapes and plugin reads outside', async () => {
    expect(await h.failure('read_file', { path: 'bin.dat' })).toBe('NATIVE_BINARY_FILE');
    expect(await h.failure('read_file', { path: 'src' })).toBe('NATIVE_WRONG_KIND');
    expect(await h.failure('read_file', { path: 'escape/secret.txt' })).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
    expect(await h.failure('read_file', { path: 'missing' })).toBe('NATIVE_NOT_FOUND');
    const secret = join(outside, 'secret.txt');
    expect(await h.failure('read_file', { path: secret }, { requestedBy: PLUGIN })).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
    // The model may read absolute paths anywhere (spec: native reads accept absolute paths).
    expect(await h.ok('read_file', { path: secret })).toMatchObject({
      path: secret,
      content: '1 | todo secret\n',
    });
  });
});

describe('search', () => {
  it('finds case-insensitive literals, skipping hidden, ignored, binary and dependency files', async () => {
    const out = await h.ok<{
      matches: { path: string; line: number; text: string }[];
      skipped_files: number;
    }>('search', { query: 'todo' });
    expect(out.matches.map((m) => `${m.path}:${m.line}`)).toEqual([
      'src/a.ts:2',
      'src/nested/b.ts:1',
      'src/nested/c.js:1',
    ]);
    expect(out.skipped_files).toBe(1);
  });

  it('supports regex, case sensitivity, hidden files, gitignore opt-out, globs and extensions', async () => {
    const texts = async (args: Record<string, unknown>) =>
      (await h.ok<{ matches: { path: string }[] }>('search', args as never)).matches.map(
        (m) => m.path,
      );
    expect(await texts({ query: 'TODO', case_sensitive: true })).toEqual(['src/a.ts']);
    expect(await texts({ query: '^h', mode: 'regex', path: 'README.md' })).toEqual([
      'README.md',
      'README.md',
    ]);
    expect(await texts({ query: 'todo', include_hidden: true })).toContain('.hidden');
    expect(await texts({ query: 'todo', respect_gitignore: false })).toContain('ignored.log');
    expect(await texts({ query: 'todo', extensions: ['js'] })).toEqual(['src/nested/c.js']);
    expect(await texts({ query: 'todo', include_globs: ['src/**/*.ts'] })).toEqual([
      'src/a.ts',
      'src/nested/b.ts',
    ]);
    expect(await texts({ query: 'todo', exclude_globs: ['nested/'] })).toEqual(['src/a.ts']);
  });

  it('pages with next_cursor', async () => {
    const first = await h.ok<{ matches: { path: string }[]; next_cursor: string | null }>(
      'search',
      {
        query: 'todo',
        max_results: 2,
      },
    );
    expect(first.matches).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await h.ok<{ matches: { path: string }[]; next_cursor: string | null }>(
      'search',
      {
        query: 'todo',
        max_results: 2,
        cursor: first.next_cursor as string,
      },
    );
    expect(second.matches.map((m) => m.path)).toEqual(['src/nested/c.js']);
    expect(second.next_cursor).toBeNull();
    expect(await h.failure('search', { query: 'other', cursor: first.next_cursor as string })).toBe(
      'NATIVE_INVALID_ARGUMENTS',
    );
  });

  it('rejects invalid regexes and fenced paths', async () => {
    expect(await h.failure('search', { query: '(', mode: 'regex' })).toBe(
      'NATIVE_INVALID_ARGUMENTS',
    );
    expect(await h.failure('search', { query: 'todo', path: 'escape' })).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
    expect(await h.failure('search', { query: 'todo', path: '../' })).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
  });
});

describe('write_file', () => {
  it('creates files and parents atomically, leaving no temp files', async () => {
    const out = await h.ok('write_file', { path: 'out/deep/new.txt', content: 'héllo' });
    expect(out).toEqual({ path: 'out/deep/new.txt', bytes: 6, created: true });
    expect(await readFile(join(root, 'out/deep/new.txt'), 'utf8')).toBe('héllo');
    expect(await readdir(join(root, 'out/deep'))).toEqual(['new.txt']);
  });

  it('replaces existing files keeping their mode', async () => {
    await chmod(join(root, 'src/a.ts'), 0o640);
    const out = await h.ok('write_file', { path: 'src/a.ts', content: 'x' });
    expect(out).toMatchObject({ created: false, bytes: 1 });
    expect((await stat(join(root, 'src/a.ts'))).mode & 0o777).toBe(0o640);
  });

  it('refuses escapes, oversized content and directories', async () => {
    expect(await h.failure('write_file', { path: 'escape/x.txt', content: 'x' })).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
    expect(await h.failure('write_file', { path: '../x.txt', content: 'x' })).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
    expect(await h.failure('write_file', { path: join(outside, 'x.txt'), content: 'x' })).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
    expect(await readdir(outside)).toEqual(['secret.txt']);
    const big = 'x'.repeat(NATIVE_LIMITS.writeMaxBytes + 1);
    expect(await h.failure('write_file', { path: 'big.txt', content: big })).toBe(
      'NATIVE_TOO_LARGE',
    );
    expect(await h.failure('write_file', { path: 'src', content: 'x' })).toBe('NATIVE_WRONG_KIND');
  });

  it('writes absolute paths outside only with Full Access and never for plugins', async () => {
    const full = harness(root, { allowAbsoluteWrites: true });
    const target = join(outside, 'allowed.txt');
    expect(await full.ok('write_file', { path: target, content: 'ok' })).toMatchObject({
      path: target,
    });
    expect(
      await full.failure(
        'write_file',
        { path: join(outside, 'p.txt'), content: 'x' },
        { requestedBy: PLUGIN },
      ),
    ).toBe('HOST_PATH_OUTSIDE_PROJECT');
  });
});

describe('edit_file', () => {
  it('replaces exactly one occurrence', async () => {
    const out = await h.ok('edit_file', {
      path: 'README.md',
      old_str: 'hello world',
      new_str: 'bye',
    });
    expect(out).toEqual({ path: 'README.md', replacements: 1, bytes: 24 });
    expect(await readFile(join(root, 'README.md'), 'utf8')).toBe('# Title\nbye\nHello again\n');
  });

  it('reports missing, ambiguous, identical and unfenced edits without touching the file', async () => {
    await writeFile(join(root, 'dup.txt'), 'a a\n');
    expect(await h.failure('edit_file', { path: 'dup.txt', old_str: 'a', new_str: 'b' })).toBe(
      'NATIVE_EDIT_AMBIGUOUS',
    );
    expect(await h.failure('edit_file', { path: 'dup.txt', old_str: 'z', new_str: 'b' })).toBe(
      'NATIVE_EDIT_NO_MATCH',
    );
    expect(await h.failure('edit_file', { path: 'dup.txt', old_str: 'a', new_str: 'a' })).toBe(
      'NATIVE_INVALID_ARGUMENTS',
    );
    expect(await h.failure('edit_file', { path: 'dup.txt', old_str: '', new_str: 'a' })).toBe(
      'NATIVE_INVALID_ARGUMENTS',
    );
    expect(await h.failure('edit_file', { path: 'nope.txt', old_str: 'a', new_str: 'b' })).toBe(
      'NATIVE_NOT_FOUND',
    );
    expect(
      await h.failure('edit_file', { path: 'escape/secret.txt', old_str: 'todo', new_str: 'x' }),
    ).toBe('HOST_PATH_OUTSIDE_PROJECT');
    expect(await readFile(join(root, 'dup.txt'), 'utf8')).toBe('a a\n');
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('todo secret\n');
  });
});

describe('ask_user', () => {
  it('asks through the UserAsker port and fails cleanly when headless or declined', async () => {
    const asker = new ScriptedAsker('blue', { kind: 'declined' });
    const withAsker = harness(root, { asker });
    expect(
      await withAsker.ok('ask_user', {
        question: 'Colour?',
        options: [{ label: 'blue' }, { label: 'red' }],
      }),
    ).toEqual({ answer: 'blue' });
    expect(asker.questions[0]).toEqual({
      question: 'Colour?',
      options: [{ label: 'blue' }, { label: 'red' }],
      allowCustom: true,
    });
    expect(await withAsker.failure('ask_user', { question: 'Again?' })).toBe(
      'NATIVE_USER_DECLINED',
    );
    expect(await h.failure('ask_user', { question: 'Anyone?' })).toBe('NATIVE_NO_FRONTEND');
  });

  it('without custom answers asks again after a typo, takes a label in any case, and gives up after three', async () => {
    const options = [{ label: 'Blue' }, { label: 'Red' }];
    const asker = new ScriptedAsker('bleu', ' red ', 'x', 'y', 'z');
    const withAsker = harness(root, { asker });
    const args = { question: 'Colour?', options, allow_custom: false };
    expect(await withAsker.ok('ask_user', args)).toEqual({ answer: 'Red' });
    expect(asker.questions[1]?.question).toBe(
      'Colour?\n("bleu" is not one of the options: answer with one of them)',
    );
    expect(await withAsker.failure('ask_user', args)).toBe('NATIVE_USER_DECLINED');
    expect(asker.questions).toHaveLength(5);
    // With custom answers allowed, any text is the answer; a label is still the option's.
    const free = new ScriptedAsker('purple', 'BLUE');
    const withFree = harness(root, { asker: free });
    expect(await withFree.ok('ask_user', { question: 'Colour?', options })).toEqual({
      answer: 'purple',
    });
    expect(await withFree.ok('ask_user', { question: 'Colour?', options })).toEqual({
      answer: 'Blue',
    });
  });
});

describe('through the kernel pipeline', () => {
  it('applies the mode table by effect: reads pass, execute asks the approver', async () => {
    const approver = new ScriptedApprover({ outcome: 'deny', reason: 'no' });
    const read = await h.pipeline.call('read_file', { path: 'README.md' }, runContext('read-only'));
    expect(read.isError).toBeUndefined();
    await expect(
      h.pipeline.call(
        'run_command',
        { command: 'true' },
        { ...runContext('project-write'), approver },
      ),
    ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(approver.requests).toHaveLength(1);
    await expect(
      h.pipeline.call('write_file', { path: 'w.txt', content: 'x' }, runContext('read-only')),
    ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(stat(join(root, 'w.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('applies the strict fence to plugin-requested calls', async () => {
    const result = await h.pipeline.call(
      'read_file',
      { path: join(outside, 'secret.txt') },
      runContext('full-access'),
      { requestedBy: PLUGIN },
    );
    expect(result).toMatchObject({
      isError: true,
      structured: { error: { code: 'HOST_PATH_OUTSIDE_PROJECT' } },
    });
  });
});

describe('search with a catastrophic regular expression', () => {
  it('runs it off the event loop and cancels it at once', async () => {
    await writeFile(join(root, 'evil.txt'), `${'a'.repeat(40)}b\n`);
    const controller = new AbortController();
    const call = h.call(
      'search',
      { query: '^(a+)+$', mode: 'regex', path: 'evil.txt' },
      { signal: controller.signal },
    );
    // The event loop still turns while the worker backtracks.
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('still finds matches of ordinary regular expressions across files', async () => {
    const out = await h.ok<{ matches: { path: string; line: number }[] }>('search', {
      query: '^export const [ab]',
      mode: 'regex',
    });
    expect(out.matches.map((m) => `${m.path}:${m.line}`)).toEqual([
      'src/a.ts:1',
      'src/nested/b.ts:1',
    ]);
  });
});

describe('outputs stay under the tool result limit', () => {
  const run = () => runContext('full-access');

  it('read_file cuts escape-heavy and enormous lines without loading them whole', async () => {
    await writeFile(join(root, 'tabs.txt'), `${'\t'.repeat(3 * 1024 * 1024)}\nsecond\n`);
    const result = await h.pipeline.call(
      'read_file',
      { path: 'tabs.txt', max_bytes: NATIVE_LIMITS.readMaxBytes },
      run(),
    );
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(LIMITS.toolResultBytes);
    expect(result.structured).toMatchObject({ truncated: true, start_line: 1, end_line: 1 });
    const next = await h.ok('read_file', { path: 'tabs.txt', start_line: 2 });
    expect(next).toMatchObject({ content: '2 | second\n', truncated: false });
  });

  it('read_file handles CRLF and a last line without a newline', async () => {
    await writeFile(join(root, 'crlf.txt'), 'one\r\ntwo\r\nthree');
    expect(await h.ok('read_file', { path: 'crlf.txt' })).toMatchObject({
      content: '1 | one\n2 | two\n3 | three\n',
      end_line: 3,
      truncated: false,
    });
    expect(await h.failure('read_file', { path: 'crlf.txt', start_line: 9 })).toBe(
      'NATIVE_INVALID_ARGUMENTS',
    );
  });

  it('list_files stops at the result budget with very long paths', async () => {
    let dir = root;
    for (let i = 0; i < 7; i++) {
      dir = join(dir, `${String(i)}${'d'.repeat(240)}`);
      await mkdir(dir);
    }
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        writeFile(join(dir, `${String(i).padStart(4, '0')}${'f'.repeat(240)}`), ''),
      ),
    );
    const result = await h.pipeline.call('list_files', { max_depth: 8, max_entries: 2000 }, run());
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(LIMITS.toolResultBytes);
    expect(result.structured).toMatchObject({ truncated: true });
  });

  it('search pages when escaped matches would pass the budget', async () => {
    const lines = Array.from(
      { length: 1000 },
      (_, i) => `hit${String(i).padStart(4, '0')}${'\u0001'.repeat(490)}`,
    );
    await writeFile(join(root, 'many.txt'), `${lines.join('\n')}\n`);
    const args = { query: 'hit', path: 'many.txt', max_results: 1000 };
    const first = await h.pipeline.call('search', args, run());
    expect(Buffer.byteLength(first.content)).toBeLessThanOrEqual(LIMITS.toolResultBytes);
    const page = first.structured as { matches: { line: number }[]; next_cursor: string | null };
    expect(page.matches.length).toBeLessThan(1000);
    expect(page.next_cursor).not.toBeNull();
    const second = await h.ok<{ matches: { line: number }[] }>('search', {
      ...args,
      cursor: page.next_cursor as string,
    });
    expect(second.matches[0]?.line).toBe(page.matches.length + 1);
  });
});
