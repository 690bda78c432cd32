/** Temp projects and a pipeline around the native tools, for this package's tests only. */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createGlobalScope,
  type JsonObject,
  type PermissionMode,
  type RunContext,
  RunEventStream,
  type Scope,
  type ToolCallContext,
  ToolPipeline,
  ToolRegistry,
  type ToolResult,
  type UserAsker,
} from '@clat/kernel';
import { createNativeTools } from './index.js';

export interface TempDirs {
  make(prefix?: string): Promise<string>;
  cleanup(): Promise<void>;
}

export function tempDirs(): TempDirs {
  const made: string[] = [];
  return {
    async make(prefix = 'clat-native-') {
      const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
      made.push(dir);
      return dir;
    },
    async cleanup() {
      await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

export interface Harness {
  call(name: string, args: JsonObject, extra?: Partial<ToolCallContext>): Promise<ToolResult>;
  /** Structured output of a successful call; throws with the message otherwise. */
  ok<T = Record<string, unknown>>(
    name: string,
    args: JsonObject,
    extra?: Partial<ToolCallContext>,
  ): Promise<T>;
  /** The error code of a failed call. */
  failure(name: string, args: JsonObject, extra?: Partial<ToolCallContext>): Promise<string>;
  pipeline: ToolPipeline;
  scope: Scope;
}

export const PLUGIN = { kind: 'mcp', id: 'fixture' } as const;

export function harness(
  projectRoot: string,
  options: { allowAbsoluteWrites?: boolean; asker?: UserAsker } = {},
): Harness {
  const tools = createNativeTools({ projectRoot });
  const registry = new ToolRegistry();
  const scope = createGlobalScope('native-tools-test');
  for (const tool of tools) registry.register(tool, scope);
  const pipeline = new ToolPipeline({ registry, events: new RunEventStream() });
  const call = (name: string, args: JsonObject, extra: Partial<ToolCallContext> = {}) => {
    const tool = registry.get(name);
    if (tool === undefined) throw new Error(`no tool ${name}`);
    const signal = extra.signal ?? new AbortController().signal;
    const mode: PermissionMode =
      options.allowAbsoluteWrites === true ? 'full-access' : 'project-write';
    return tool.invoke(args, {
      callId: 'c1',
      run: { id: 'r1', mode, asker: options.asker, signal },
      signal,
      ...extra,
    });
  };
  return {
    call,
    pipeline,
    scope,
    async ok(name, args, extra) {
      const result = await call(name, args, extra);
      if (result.isError === true) throw new Error(`${name} failed: ${result.content}`);
      return result.structured as never;
    },
    async failure(name, args, extra) {
      const result = await call(name, args, extra);
      if (result.isError !== true)
        throw new Error(`${name} unexpectedly succeeded: ${result.content}`);
      return (result.structured as { error: { code: string } }).error.code;
    },
  };
}

export function runContext(
  mode: PermissionMode,
  signal: AbortSignal = new AbortController().signal,
): RunContext {
  return { runId: 'r1', mode, signal };
}
