/**
 * `ctx.clat`, `ctx.fs`, `ctx.shell`, `ctx.sessions` and `ctx.agents` over the CLAT
 * host-services extension. Every file and command operation is a native host-tool call, so it
 * passes CLAT's permission policy, project fence and run cancellation; nothing here touches the
 * disk or spawns a process itself.
 * Slightly over ~500 lines: one seam per `ctx` namespace, each a thin mapping onto a native host
 * tool; they share the call helper and read best side by side.
 * @module
 */
import { createHash } from 'node:crypto';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isJsonObject, isNativeHostTool, LIMITS, NATIVE_HOST_TOOLS } from '@clat/kernel';
import { DshAdapterError, DshErrorCode } from '../errors.js';
import type { HostLink, HostSnapshot } from '../host-link.js';

/** Largest read asked of the host's read_file: half the tool-result cap leaves room for line prefixes. */
const FS_READ_MAX_BYTES = LIMITS.toolResultBytes / 2;
/** Entries asked of list_files for one directory (its own maximum). */
const FS_LIST_MAX_ENTRIES = 2000;
/** run_command's own output cap, reported to plugins through `shell.resolve`. */
const SHELL_STDOUT_MAX_BYTES = 32 * 1024;
const SHELL_TIMEOUT_DEFAULT_MS = 120_000;
const SHELL_TIMEOUT_MIN_MS = 1_000;
const SHELL_TIMEOUT_MAX_MS = 600_000;

export interface ClatHostService {
  context(): Promise<HostSnapshot>;
  callTool(name: string, args?: Record<string, unknown>): Promise<unknown>;
}

export function createClatHostService(link: HostLink): ClatHostService {
  return {
    async context() {
      if (link.currentCall() !== undefined) return link.fetchContext('clat.context');
      const mirror = link.snapshot;
      if (mirror === null || mirror.run === null) {
        throw new DshAdapterError(
          DshErrorCode.CLAT_HOST_UNAVAILABLE,
          'no CLAT run is active: clat.context() outside a tool call needs a pushed run context',
        );
      }
      return structuredClone(mirror);
    },
    async callTool(name, args = {}) {
      if (typeof name !== 'string' || !isNativeHostTool(name)) {
        throw new DshAdapterError(
          DshErrorCode.BAD_REQUEST,
          `clat.callTool(${JSON.stringify(name)}): only ${NATIVE_HOST_TOOLS.join(', ')} are host tools`,
        );
      }
      if (!isJsonObject(args)) {
        throw new DshAdapterError(
          DshErrorCode.BAD_REQUEST,
          `clat.callTool(${name}) arguments must be an object`,
        );
      }
      return link.callHostTool(`clat.callTool(${name})`, name, args);
    },
  };
}

export interface FsTarget {
  targetKey: string;
  displayPath: string;
}

export interface FsInfo {
  version: string;
  type: 'file' | 'directory' | 'other';
  size?: number;
}

type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

function abortable(signal: AbortSignal | undefined): AbortSignal | undefined {
  if (signal?.aborted === true)
    throw new DshAdapterError(DshErrorCode.ABORTED, 'the fs operation was cancelled');
  return signal;
}

/** Strips read_file's `N | ` line prefixes. */
export function stripLineNumbers(content: string): string {
  const trailingNewline = content.endsWith('\n');
  const lines = (trailingNewline ? content.slice(0, -1) : content).split('\n');
  const text = lines.map((line) => line.replace(/^\s*\d+ \| ?/, '')).join('\n');
  return trailingNewline ? `${text}\n` : text;
}

export interface FileSystemService {
  readonly sandboxMode: undefined;
  resolve(path: string, options?: { cwd?: string; signal?: AbortSignal }): Promise<FsTarget>;
  processPath(target: FsTarget): string;
  fileUrl(target: FsTarget): string;
  contains(parent: FsTarget, child: FsTarget): boolean;
  stat(target: FsTarget, signal?: AbortSignal): Promise<FsInfo | undefined>;
  lstat(
    path: string,
    options?: { cwd?: string },
    signal?: AbortSignal,
  ): Promise<{ version: string; type: EntryKind; size?: number } | undefined>;
  readText(target: FsTarget, signal?: AbortSignal): Promise<string>;
  streamText(target: FsTarget, signal?: AbortSignal): Promise<AsyncIterable<string>>;
  readBytes(
    target: FsTarget,
    signal: AbortSignal | undefined,
    maxBytes: number,
  ): Promise<Uint8Array>;
  listDir(
    target: FsTarget,
    signal?: AbortSignal,
  ): Promise<{ name: string; type: 'file' | 'directory' | 'other'; target: FsTarget }[]>;
  writeText(
    target: FsTarget,
    content: string,
    expected?: unknown,
    signal?: AbortSignal,
  ): Promise<{
    operation: 'create' | 'update';
    version: string;
    before: string | null;
    after: string;
  }>;
  editText(
    target: FsTarget,
    edit: { oldString: string; newString: string; replaceAll?: boolean },
    expected?: unknown,
    signal?: AbortSignal,
  ): Promise<{ version: string; before: string; after: string }>;
}

export function createFileSystemService(link: HostLink): FileSystemService {
  const projectRoot = async (): Promise<string> => {
    if (link.currentCall() !== undefined) {
      const snapshot = link.snapshot ?? (await link.fetchContext('fs'));
      return snapshot.project.root;
    }
    throw new DshAdapterError(
      DshErrorCode.CLAT_HOST_UNAVAILABLE,
      "fs is only available while CLAT runs one of this plugin's tools (no tool call is active)",
    );
  };

  const toTarget = (root: string, absolute: string): FsTarget => {
    const rel = relative(root, absolute);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      throw new DshAdapterError(
        DshErrorCode.FS_OUTSIDE_PROJECT,
        `${absolute} is outside the project ${root}`,
      );
    }
    return { targetKey: absolute, displayPath: rel === '' ? '.' : rel.split(sep).join('/') };
  };

  const call = (name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
    link.callHostTool(`fs (${name})`, name, args, abortable(signal));

  const readFile = async (target: FsTarget, signal?: AbortSignal): Promise<string> => {
    const output = await call(
      'read_file',
      { path: target.displayPath, max_bytes: FS_READ_MAX_BYTES },
      signal,
    );
    if (!isJsonObject(output) || typeof output.content !== 'string') {
      throw new DshAdapterError(
        DshErrorCode.BAD_HOST_RESPONSE,
        `read_file ${target.displayPath} returned no content`,
      );
    }
    if (output.truncated === true) {
      throw new DshAdapterError(
        DshErrorCode.FS_TOO_LARGE,
        `${target.displayPath} is larger than one bounded host read (${FS_READ_MAX_BYTES} bytes)`,
      );
    }
    return stripLineNumbers(output.content);
  };

  const listEntries = async (target: FsTarget, signal?: AbortSignal) => {
    const output = await call(
      'list_files',
      { path: target.displayPath, max_depth: 1, max_entries: FS_LIST_MAX_ENTRIES },
      signal,
    );
    if (!isJsonObject(output) || !Array.isArray(output.entries)) {
      throw new DshAdapterError(
        DshErrorCode.BAD_HOST_RESPONSE,
        `list_files ${target.displayPath} returned no entries`,
      );
    }
    const root = target.targetKey;
    const project = await projectRoot();
    const entries: { absolute: string; kind: EntryKind }[] = [];
    for (const entry of output.entries) {
      if (!isJsonObject(entry) || typeof entry.path !== 'string') continue;
      const kind: EntryKind =
        entry.kind === 'file' || entry.kind === 'directory' || entry.kind === 'symlink'
          ? entry.kind
          : 'other';
      // Entry paths may be project-relative or relative to the listed directory.
      const projectRelative = resolve(project, entry.path);
      const absolute = projectRelative.startsWith(root + sep)
        ? projectRelative
        : resolve(root, entry.path);
      if (resolve(absolute, '..') === root) entries.push({ absolute, kind });
    }
    return { entries, truncated: output.truncated === true };
  };

  const statKind = async (
    target: FsTarget,
    signal?: AbortSignal,
  ): Promise<EntryKind | undefined> => {
    if (target.displayPath === '.') return 'directory';
    const parent = toTarget(await projectRoot(), resolve(target.targetKey, '..'));
    try {
      const { entries } = await listEntries(parent, signal);
      return entries.find((entry) => entry.absolute === target.targetKey)?.kind;
    } catch (error) {
      if (error instanceof DshAdapterError && error.code === DshErrorCode.HOST_CALL_FAILED)
        return undefined;
      throw error;
    }
  };

  const info = async (target: FsTarget, kind: EntryKind, signal?: AbortSignal) => {
    if (kind !== 'file') return { version: `clat:${kind}`, type: kind };
    try {
      const text = await readFile(target, signal);
      return { version: sha256(text), type: kind, size: Buffer.byteLength(text) };
    } catch (error) {
      if (error instanceof DshAdapterError && error.code === DshErrorCode.FS_TOO_LARGE) {
        return { version: 'clat:bounded-file', type: kind };
      }
      throw error;
    }
  };

  return {
    sandboxMode: undefined,
    async resolve(path, options = {}) {
      if (typeof path !== 'string' || path === '') {
        throw new DshAdapterError(DshErrorCode.BAD_REQUEST, 'fs.resolve needs a non-empty path');
      }
      const root = await projectRoot();
      return toTarget(root, resolve(options.cwd ?? root, path));
    },
    processPath: (target) => target.targetKey,
    fileUrl: (target) => pathToFileURL(target.targetKey).href,
    contains: (parent, child) =>
      child.targetKey === parent.targetKey || child.targetKey.startsWith(parent.targetKey + sep),
    async stat(target, signal) {
      const kind = await statKind(target, signal);
      if (kind === undefined) return undefined;
      const result = await info(target, kind, signal);
      return { ...result, type: result.type === 'symlink' ? 'other' : result.type };
    },
    async lstat(path, options = {}, signal) {
      const target = await this.resolve(path, options);
      const kind = await statKind(target, signal);
      return kind === undefined ? undefined : info(target, kind, signal);
    },
    readText: (target, signal) => readFile(target, signal),
    async streamText(target, signal) {
      const text = await readFile(target, signal);
      return (async function* () {
        yield text;
      })();
    },
    async readBytes(target, signal, maxBytes) {
      const bytes = Buffer.from(await readFile(target, signal));
      if (bytes.length > maxBytes) {
        throw new DshAdapterError(
          DshErrorCode.FS_TOO_LARGE,
          `${target.displayPath} has ${bytes.length} bytes, more than ${maxBytes}`,
        );
      }
      return new Uint8Array(bytes);
    },
    async listDir(target, signal) {
      const { entries, truncated } = await listEntries(target, signal);
      if (truncated) {
        throw new DshAdapterError(
          DshErrorCode.FS_TOO_LARGE,
          `${target.displayPath} has more than ${FS_LIST_MAX_ENTRIES} entries`,
        );
      }
      const root = await projectRoot();
      return entries.map((entry) => ({
        name: entry.absolute.slice(entry.absolute.lastIndexOf(sep) + 1),
        type: entry.kind === 'file' || entry.kind === 'directory' ? entry.kind : 'other',
        target: toTarget(root, entry.absolute),
      }));
    },
    async writeText(target, content, expected, signal) {
      if (expected !== undefined) {
        throw new DshAdapterError(
          DshErrorCode.FS_GUARD_UNSUPPORTED,
          `fs.writeText(${target.displayPath}) with an expected version cannot be made atomic over CLAT host tools`,
        );
      }
      if (typeof content !== 'string')
        throw new DshAdapterError(DshErrorCode.BAD_REQUEST, 'fs.writeText needs string content');
      const output = await call('write_file', { path: target.displayPath, content }, signal);
      const created = isJsonObject(output) && output.created === true;
      return {
        operation: created ? 'create' : 'update',
        version: sha256(content),
        before: null,
        after: content,
      };
    },
    async editText(target, edit, expected, signal) {
      if (expected !== undefined || edit.replaceAll === true) {
        throw new DshAdapterError(
          DshErrorCode.FS_GUARD_UNSUPPORTED,
          `fs.editText(${target.displayPath}) with ${expected !== undefined ? 'an expected version' : 'replaceAll'} is not supported over CLAT host tools`,
        );
      }
      const before = await readFile(target, signal);
      await call(
        'edit_file',
        { path: target.displayPath, old_str: edit.oldString, new_str: edit.newString },
        signal,
      );
      const after = await readFile(target, signal);
      return { version: sha256(after), before, after };
    },
  };
}

export interface ShellSpec {
  command: string;
  workdir: string;
  timeoutMs: number;
  stdoutMaxBytes: number;
  sandboxPolicy: undefined;
  [key: string]: unknown;
}

export interface ShellResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** run_command's complete output, for fields this shape does not name. */
  output: unknown;
}

export interface ShellService {
  readonly sandboxMode: undefined;
  resolve(request: { command: string; [key: string]: unknown }): ShellSpec;
  run(spec: { command: string; timeoutMs?: number; [key: string]: unknown }): Promise<ShellResult>;
  start(spec: unknown): never;
}

export function createShellService(link: HostLink): ShellService {
  const rootHint = () => link.snapshot?.project.root ?? '.';
  const resolveSpec = (request: { command: string; [key: string]: unknown }): ShellSpec => {
    if (
      !isJsonObject(request) ||
      typeof request.command !== 'string' ||
      request.command.trim() === ''
    ) {
      throw new DshAdapterError(DshErrorCode.BAD_REQUEST, 'shell needs a non-empty command');
    }
    for (const option of ['env', 'dshEnv', 'stdin'] as const) {
      if (request[option] !== undefined) {
        throw new DshAdapterError(
          DshErrorCode.SHELL_OPTION_UNSUPPORTED,
          `shell option ${option} is not supported: CLAT's run_command has no ${option}`,
        );
      }
    }
    const root = rootHint();
    if (
      request.workdir !== undefined &&
      request.workdir !== '.' &&
      resolve(root, String(request.workdir)) !== root
    ) {
      throw new DshAdapterError(
        DshErrorCode.SHELL_OPTION_UNSUPPORTED,
        `shell workdir ${String(request.workdir)} is not supported: commands run in the project root`,
      );
    }
    const requested =
      typeof request.timeoutMs === 'number' && Number.isFinite(request.timeoutMs)
        ? request.timeoutMs
        : SHELL_TIMEOUT_DEFAULT_MS;
    const timeoutMs = Math.min(SHELL_TIMEOUT_MAX_MS, Math.max(SHELL_TIMEOUT_MIN_MS, requested));
    return {
      ...request,
      command: request.command,
      workdir: root,
      timeoutMs,
      stdoutMaxBytes: SHELL_STDOUT_MAX_BYTES,
      sandboxPolicy: undefined,
    };
  };
  return {
    sandboxMode: undefined,
    resolve: resolveSpec,
    async run(spec) {
      const resolved = resolveSpec(spec);
      const output = await link.callHostTool('shell.run', 'run_command', {
        command: resolved.command,
        timeout_seconds: Math.ceil(resolved.timeoutMs / 1000),
      });
      const o = isJsonObject(output) ? output : {};
      return {
        exitCode: typeof o.exit_code === 'number' ? o.exit_code : null,
        signal: typeof o.signal === 'string' ? o.signal : null,
        timedOut: o.timed_out === true,
        stdout: typeof o.stdout === 'string' ? o.stdout : '',
        stderr: typeof o.stderr === 'string' ? o.stderr : '',
        stdoutTruncated: o.stdout_truncated === true,
        stderrTruncated: o.stderr_truncated === true,
        output,
      };
    },
    start(): never {
      throw new DshAdapterError(
        DshErrorCode.CLAT_HOST_UNAVAILABLE,
        'shell.start (background processes) is not available over CLAT host services; use shell.run',
      );
    },
  };
}

export interface SessionMirror {
  readonly id: string;
  readonly header: Readonly<Record<string, unknown>>;
  readonly events: readonly unknown[];
  readonly messages: readonly unknown[];
}

function readOnly(service: string, method: string): () => never {
  return () => {
    throw new DshAdapterError(
      DshErrorCode.READ_ONLY_HOST_SERVICE,
      `${service}.${method} is not available: CLAT exposes only a read-only mirror of the current run`,
    );
  };
}

function sessionOf(snapshot: HostSnapshot | null): SessionMirror | undefined {
  if (snapshot === null || snapshot.run === null) return undefined;
  const run = snapshot.run;
  return Object.freeze({
    id: run.sessionId ?? 'clat-run',
    header: Object.freeze({
      origin: 'clat-host-mirror',
      provider: run.provider,
      model: run.model,
      permissionMode: run.permissionMode,
      project: snapshot.project.root,
    }),
    events: Object.freeze(
      run.messages.map((message) => ({ type: 'clat/model-item', item: message })),
    ),
    messages: Object.freeze([...run.messages]),
  });
}

export function createSessionsService(link: HostLink) {
  return {
    get: (id: string) => {
      const session = sessionOf(link.snapshot);
      return session?.id === id ? session : undefined;
    },
    list: () => {
      const session = sessionOf(link.snapshot);
      return session === undefined ? [] : [session];
    },
    create: readOnly('sessions', 'create'),
    prepare: readOnly('sessions', 'prepare'),
    enter: readOnly('sessions', 'enter'),
    announce: readOnly('sessions', 'announce'),
    flush: readOnly('sessions', 'flush'),
    fork: readOnly('sessions', 'fork'),
  };
}

export function createAgentsService(link: HostLink, ctx: () => unknown) {
  const agents = () => {
    const session = sessionOf(link.snapshot);
    return session === undefined ? [] : [Object.freeze({ id: 'root', session, ctx: ctx() })];
  };
  return {
    get: (id: string) => agents().find((agent) => agent.id === id),
    list: agents,
    roots: agents,
    create: readOnly('agents', 'create'),
    resume: readOnly('agents', 'resume'),
    setFactory: readOnly('agents', 'setFactory'),
  };
}
