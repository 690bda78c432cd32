/**
 * `.clatpkg` containers: `"CLATPKG1"` ‖ u32be(header length) ‖ compact JSON header
 * `{schemaVersion:1, files:[{path, bytes, sha256, executable}]}` ‖ file bodies in header order.
 * Paths are strictly sorted in byte order, so packing the same tree always yields the same bytes.
 * @module
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { relativePathProblem } from '@clat/kernel';
import { createFileAtomic, fsyncDirectory, writeNewFile } from '@clat/node-files';
import * as z from 'zod';
import { PackagingError } from './errors.js';
import { inspectPackage } from './inspect.js';
import { PACKAGE_LIMITS } from './limits.js';
import { comparePaths, type TreeFile } from './tree.js';

export const CLATPKG_MAGIC = 'CLATPKG1';
const PREFIX_BYTES = 12;

const ContainerHeaderSchema = z
  .object({
    schemaVersion: z.literal(1),
    files: z
      .array(
        z
          .object({
            path: z.string().min(1),
            bytes: z.number().int().min(0).max(PACKAGE_LIMITS.fileBytes),
            sha256: z.string().regex(/^[0-9a-f]{64}$/),
            executable: z.boolean(),
          })
          .strict(),
      )
      .min(1)
      .max(PACKAGE_LIMITS.treeFiles),
  })
  .strict();

type ContainerHeader = z.infer<typeof ContainerHeaderSchema>;

async function readExact(path: string, file: TreeFile): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(file.size);
    let read = 0;
    while (read < file.size) {
      const { bytesRead } = await handle.read(buffer, read, file.size - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    const extra = await handle.read(Buffer.alloc(1), 0, 1, file.size);
    const digest = createHash('sha256').update(buffer).digest('hex');
    if (read !== file.size || extra.bytesRead !== 0 || digest !== file.sha256) {
      throw new PackagingError('TREE_CHANGED', `${file.path} changed while being packed`, {
        file: file.path,
      });
    }
    return buffer;
  } finally {
    await handle.close();
  }
}

export interface PackResult {
  output: string;
  bytes: number;
  files: number;
  treeSha256: string;
  /** SHA-256 of the container bytes. */
  sha256: string;
}

/**
 * Packs a package directory (inspected first, so only valid packages are packed) into a new
 * `.clatpkg`. Refuses an existing output; writes a temp file, fsyncs, then links it into place.
 */
export async function packPackage(dir: string, output: string): Promise<PackResult> {
  if (await lstat(output).catch(() => undefined)) {
    throw new PackagingError('OUTPUT_INVALID', `${output} already exists`, { file: output });
  }
  const inspected = await inspectPackage(dir);
  const files = inspected.tree.files;
  const header: ContainerHeader = {
    schemaVersion: 1,
    files: files.map((file) => ({
      path: file.path,
      bytes: file.size,
      sha256: file.sha256,
      executable: file.executable,
    })),
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  if (headerBytes.length > PACKAGE_LIMITS.containerHeaderBytes) {
    throw new PackagingError('TREE_TOO_LARGE', `${dir}: container header exceeds 1 MiB`);
  }
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.write(CLATPKG_MAGIC, 0, 'ascii');
  prefix.writeUInt32BE(headerBytes.length, 8);

  const hash = createHash('sha256');
  let total = 0;
  const counted = (chunk: Buffer): Buffer => {
    hash.update(chunk);
    total += chunk.length;
    return chunk;
  };
  // The body is asked for only once the temp file exists: a failure before it started is the
  // output that cannot be created.
  let started = false;
  async function* body(): AsyncGenerator<Buffer> {
    started = true;
    yield counted(prefix);
    yield counted(headerBytes);
    for (const file of files) yield counted(await readExact(join(dir, file.path), file));
  }
  try {
    // A temp file (0644, synced) linked into place: a concurrently created output is never replaced.
    await createFileAtomic(output, body(), { mode: 0o644 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!started) {
      throw new PackagingError('OUTPUT_INVALID', `${output} cannot be created (${code})`, {
        file: output,
        cause: error,
      });
    }
    if (code === 'EEXIST') {
      throw new PackagingError('OUTPUT_INVALID', `${output} already exists`, { file: output });
    }
    throw error;
  }
  await fsyncDirectory(dirname(output));
  return {
    output,
    bytes: total,
    files: files.length,
    treeSha256: inspected.tree.treeSha256,
    sha256: hash.digest('hex'),
  };
}

function invalid(file: string, message: string): PackagingError {
  return new PackagingError('CONTAINER_INVALID', `${file}: ${message}`, { file });
}

function checkHeader(file: string, header: ContainerHeader): void {
  let total = 0;
  const files = new Set<string>();
  let previous: string | undefined;
  for (const entry of header.files) {
    const problem = relativePathProblem(entry.path);
    if (problem !== undefined) throw invalid(file, `path ${JSON.stringify(entry.path)} ${problem}`);
    if (entry.path.split('/').length > PACKAGE_LIMITS.treeDepth) {
      throw invalid(file, `path ${JSON.stringify(entry.path)} is nested too deep`);
    }
    if (previous !== undefined && comparePaths(previous, entry.path) >= 0) {
      throw invalid(
        file,
        `paths are not strictly sorted and unique at ${JSON.stringify(entry.path)}`,
      );
    }
    previous = entry.path;
    files.add(entry.path);
    total += entry.bytes;
    if (total > PACKAGE_LIMITS.treeBytes) throw invalid(file, 'files exceed 512 MiB in total');
  }
  // A file may not also be a directory of another path (`a` and `a/b`).
  for (const path of files) {
    for (let cut = path.indexOf('/'); cut !== -1; cut = path.indexOf('/', cut + 1)) {
      const parent = path.slice(0, cut);
      if (files.has(parent)) {
        throw invalid(
          file,
          `path ${JSON.stringify(parent)} is both a file and the directory of ${JSON.stringify(path)}`,
        );
      }
    }
  }
}

/** Reads and checks the prefix and header of an open container. */
async function readHeader(
  file: string,
  handle: Awaited<ReturnType<typeof open>>,
  size: number,
): Promise<{ header: ContainerHeader; headerLength: number }> {
  const prefix = Buffer.alloc(PREFIX_BYTES);
  const { bytesRead } = await handle.read(prefix, 0, PREFIX_BYTES, 0);
  if (bytesRead !== PREFIX_BYTES || prefix.toString('ascii', 0, 8) !== CLATPKG_MAGIC) {
    throw invalid(file, `is not a ${CLATPKG_MAGIC} container`);
  }
  const headerLength = prefix.readUInt32BE(8);
  if (headerLength < 1 || headerLength > PACKAGE_LIMITS.containerHeaderBytes) {
    throw invalid(file, `header length ${headerLength} is out of range`);
  }
  if (PREFIX_BYTES + headerLength > size) throw invalid(file, 'is truncated in the header');
  const headerBuffer = Buffer.alloc(headerLength);
  await handle.read(headerBuffer, 0, headerLength, PREFIX_BYTES);
  let raw: unknown;
  try {
    raw = JSON.parse(headerBuffer.toString('utf8'));
  } catch {
    throw invalid(file, 'header is not valid JSON');
  }
  const parsed = ContainerHeaderSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw invalid(file, `header ${first?.path.join('.') ?? ''}: ${first?.message ?? 'invalid'}`);
  }
  const header = parsed.data;
  checkHeader(file, header);
  return { header, headerLength };
}

/** The checked file list of a `.clatpkg` (what a stored container says the package shipped). */
export async function readContainerHeader(file: string): Promise<ContainerHeader['files']> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW).catch(
    (error: NodeJS.ErrnoException) => {
      throw invalid(file, `cannot be opened (${error.code})`);
    },
  );
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw invalid(file, 'is not a regular file');
    return (await readHeader(file, handle, stat.size)).header.files;
  } finally {
    await handle.close();
  }
}

/**
 * Unpacks a `.clatpkg` into `dest`, which must not exist. Files are created new (0600, or 0700
 * when executable), each digest is checked, truncation and trailing bytes are rejected, and
 * `dest` is removed again on any failure.
 */
export async function unpackContainer(file: string, dest: string): Promise<{ files: number }> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW).catch(
    (error: NodeJS.ErrnoException) => {
      throw invalid(file, `cannot be opened (${error.code})`);
    },
  );
  let created = false;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw invalid(file, 'is not a regular file');
    const maxBytes = PACKAGE_LIMITS.treeBytes + PACKAGE_LIMITS.containerHeaderBytes + PREFIX_BYTES;
    if (stat.size > maxBytes) throw invalid(file, `exceeds ${maxBytes} bytes`);
    const { header, headerLength } = await readHeader(file, handle, stat.size);
    const expected = PREFIX_BYTES + headerLength + header.files.reduce((n, f) => n + f.bytes, 0);
    if (stat.size < expected) throw invalid(file, 'is truncated');
    if (stat.size > expected) throw invalid(file, `has ${stat.size - expected} trailing bytes`);

    await mkdir(dest, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      throw new PackagingError(
        'OUTPUT_INVALID',
        error.code === 'EEXIST'
          ? `${dest} already exists`
          : `${dest} cannot be created (${error.code})`,
        { file: dest },
      );
    });
    created = true;
    let offset = PREFIX_BYTES + headerLength;
    for (const entry of header.files) {
      const body = Buffer.alloc(entry.bytes);
      let read = 0;
      while (read < entry.bytes) {
        const chunk = await handle.read(body, read, entry.bytes - read, offset + read);
        if (chunk.bytesRead === 0) throw invalid(file, `is truncated in ${entry.path}`);
        read += chunk.bytesRead;
      }
      offset += entry.bytes;
      if (createHash('sha256').update(body).digest('hex') !== entry.sha256) {
        throw invalid(file, `digest mismatch for ${entry.path}`);
      }
      const target = join(dest, ...entry.path.split('/'));
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await writeNewFile(target, body, { mode: entry.executable ? 0o700 : 0o600 });
    }
    return { files: header.files.length };
  } catch (error) {
    if (created) await rm(dest, { recursive: true, force: true });
    throw error;
  } finally {
    await handle.close();
  }
}
