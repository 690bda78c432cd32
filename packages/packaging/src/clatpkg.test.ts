import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLATPKG_MAGIC, packPackage, unpackContainer } from './clatpkg.js';
import { writeFixturePackage } from './test-fixtures.js';
import { readPackageTree } from './tree.js';

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'clatpkg-'));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

async function fixture(name = 'pkg') {
  const dir = join(work, name);
  await writeFixturePackage(dir, { extraFiles: { 'share/data.txt': 'data', 'README.md': '# x' } });
  return dir;
}

describe('.clatpkg', () => {
  it('packs deterministically and round-trips the exact tree (digest and exec bits)', async () => {
    const dir = await fixture();
    const a = await packPackage(dir, join(work, 'a.clatpkg'));
    const b = await packPackage(dir, join(work, 'b.clatpkg'));
    const bytesA = await readFile(a.output);
    expect(bytesA.equals(await readFile(b.output))).toBe(true);
    expect(a.sha256).toBe(createHash('sha256').update(bytesA).digest('hex'));
    expect(bytesA.subarray(0, 8).toString('ascii')).toBe(CLATPKG_MAGIC);
    const header = JSON.parse(bytesA.subarray(12, 12 + bytesA.readUInt32BE(8)).toString('utf8'));
    expect(header.files.map((f: { path: string }) => f.path)).toEqual([
      'README.md',
      'bin/server.mjs',
      'clat-plugin.json',
      'share/data.txt',
    ]);
    const out = join(work, 'out');
    await unpackContainer(a.output, out);
    expect((await readPackageTree(out)).treeSha256).toBe(a.treeSha256);
    expect((await stat(join(out, 'bin', 'server.mjs'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(out, 'README.md'))).mode & 0o777).toBe(0o600);
  });

  it('refuses an existing output, an empty dir and an invalid package', async () => {
    const dir = await fixture();
    await writeFile(join(work, 'exists.clatpkg'), '');
    await expect(packPackage(dir, join(work, 'exists.clatpkg'))).rejects.toMatchObject({
      code: 'OUTPUT_INVALID',
    });
    await expect(packPackage(dir, join(work, 'missing', 'x.clatpkg'))).rejects.toMatchObject({
      code: 'OUTPUT_INVALID',
      message: `${join(work, 'missing', 'x.clatpkg')} cannot be created (ENOENT)`,
    });
    await mkdir(join(work, 'empty'));
    await expect(packPackage(join(work, 'empty'), join(work, 'e.clatpkg'))).rejects.toMatchObject({
      code: 'MANIFEST_INVALID',
    });
  });

  it('rejects truncation, trailing bytes, a bad digest and unsorted paths, leaving nothing behind', async () => {
    const dir = await fixture();
    const { output } = await packPackage(dir, join(work, 'p.clatpkg'));
    const bytes = await readFile(output);
    const cases: [string, Buffer, RegExp][] = [
      ['truncated', bytes.subarray(0, bytes.length - 1), /is truncated/],
      ['trailing', Buffer.concat([bytes, Buffer.from('x')]), /1 trailing bytes/],
      ['magic', Buffer.concat([Buffer.from('NOTAPKG1'), bytes.subarray(8)]), /is not a CLATPKG1/],
    ];
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 0xff;
    cases.push(['digest', flipped, /digest mismatch for share\/data.txt/]);
    const headerLength = bytes.readUInt32BE(8);
    const header = JSON.parse(bytes.subarray(12, 12 + headerLength).toString('utf8'));
    header.files.reverse();
    const reordered = Buffer.from(JSON.stringify(header));
    const prefix = Buffer.from(bytes.subarray(0, 12));
    prefix.writeUInt32BE(reordered.length, 8);
    cases.push([
      'unsorted',
      Buffer.concat([prefix, reordered, bytes.subarray(12 + headerLength)]),
      /not strictly sorted/,
    ]);
    header.files.reverse();
    header.files[0].path = '../evil';
    const evil = Buffer.from(JSON.stringify(header));
    prefix.writeUInt32BE(evil.length, 8);
    cases.push([
      'escape',
      Buffer.concat([prefix, evil, bytes.subarray(12 + headerLength)]),
      /must not contain "\.\." components/,
    ]);
    for (const [name, content, message] of cases) {
      const file = join(work, `${name}.clatpkg`);
      await writeFile(file, content);
      const dest = join(work, `out-${name}`);
      await expect(unpackContainer(file, dest), name).rejects.toMatchObject({
        code: 'CONTAINER_INVALID',
        message: expect.stringMatching(message),
      });
      await expect(stat(dest), name).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  // Issue 14 item 8: `a` and `a/b` used to fail with a raw EEXIST half-way through unpacking.
  it('reports a path that is both a file and a directory as CONTAINER_INVALID', async () => {
    const bodies = [Buffer.from('file a'), Buffer.from('x'), Buffer.from('file a/b')];
    const paths = ['a', 'a-x', 'a/b'];
    const header = Buffer.from(
      JSON.stringify({
        schemaVersion: 1,
        files: paths.map((path, i) => ({
          path,
          bytes: bodies[i]?.length,
          sha256: createHash('sha256')
            .update(bodies[i] as Buffer)
            .digest('hex'),
          executable: false,
        })),
      }),
    );
    const prefix = Buffer.alloc(12);
    prefix.write(CLATPKG_MAGIC, 0, 'ascii');
    prefix.writeUInt32BE(header.length, 8);
    const file = join(work, 'both.clatpkg');
    await writeFile(file, Buffer.concat([prefix, header, ...bodies]));
    await expect(unpackContainer(file, join(work, 'out-both'))).rejects.toMatchObject({
      code: 'CONTAINER_INVALID',
      message: `${file}: path "a" is both a file and the directory of "a/b"`,
    });
    await expect(stat(join(work, 'out-both'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses to unpack into an existing directory', async () => {
    const { output } = await packPackage(await fixture(), join(work, 'p.clatpkg'));
    await mkdir(join(work, 'taken'));
    await expect(unpackContainer(output, join(work, 'taken'))).rejects.toMatchObject({
      code: 'OUTPUT_INVALID',
    });
  });
});
