/**
 * The process-level wrapper every served DSH plugin runs under (packaged entries and
 * `clat-dsh serve`): reads `CLAT_PLUGIN_CONFIG`, serves on stdin/stdout, and turns EOF, SIGINT
 * and SIGTERM into one orderly shutdown (abort calls, then the plugin's cleanups, newest first).
 * @module
 */
import { Writable } from 'node:stream';
import { describeJsonSyntaxError, LIMITS, utf8Length } from '@clat/kernel';
import { DshAdapterError, DshErrorCode, describeError } from './errors.js';
import type { ToolHint } from './seams/tools.js';
import { type ClatServerHandle, serveClat } from './serve-clat.js';

/** The variable CLAT sets to an installed package's configuration (compact JSON). */
export const PLUGIN_CONFIG_ENV = 'CLAT_PLUGIN_CONFIG';

/** Parses `CLAT_PLUGIN_CONFIG`: unset or blank → `{}`; ≤64 KiB of JSON. */
export function configFromEnv(env: Readonly<Record<string, string | undefined>>): unknown {
  const raw = env[PLUGIN_CONFIG_ENV];
  if (raw === undefined || raw.trim() === '') return {};
  if (utf8Length(raw) > LIMITS.pluginConfigBytes) {
    throw new DshAdapterError(
      DshErrorCode.CONFIG_INVALID,
      `${PLUGIN_CONFIG_ENV} has ${utf8Length(raw)} bytes; at most ${LIMITS.pluginConfigBytes} are accepted`,
    );
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new DshAdapterError(
      DshErrorCode.CONFIG_INVALID,
      `${PLUGIN_CONFIG_ENV} is not valid JSON: ${describeJsonSyntaxError(raw)}`,
    );
  }
}

export interface ServeProcessOptions {
  name?: string;
  version?: string;
  toolHints?: Readonly<Record<string, ToolHint>>;
  /** Overrides `CLAT_PLUGIN_CONFIG`. */
  config?: unknown;
  /** The protocol stream from {@link reserveStdoutForProtocol}; reserved here when absent. */
  output?: Writable;
}

/**
 * Serves `plugin` on this process's stdio until EOF or a signal, then exits. A startup failure
 * is written to stderr and exits with code 1.
 */
export async function servePluginProcess(
  plugin: unknown,
  options: ServeProcessOptions = {},
): Promise<void> {
  const output = options.output ?? reserveStdoutForProtocol();
  let handle: ClatServerHandle;
  try {
    const config = options.config === undefined ? configFromEnv(process.env) : options.config;
    handle = await serveClat(plugin, {
      ...(options.name === undefined ? {} : { name: options.name }),
      ...(options.version === undefined ? {} : { version: options.version }),
      ...(options.toolHints === undefined ? {} : { toolHints: options.toolHints }),
      config,
      output,
    });
  } catch (error) {
    process.stderr.write(`clat-dsh: ${describeError(error)}\n`);
    process.exit(1);
  }
  const stop = () => {
    void handle.dispose();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await handle.closed;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  // A plugin that leaked a handle must not outlive its connection; cleanups already ran.
  setTimeout(() => process.exit(0), LIMITS.shutdownGraceMs).unref();
}

/**
 * Keeps stdout for the protocol: the adapter writes through the returned stream, while anything
 * else (a plugin's `console.log`, a dependency's `process.stdout.write`) goes to stderr instead
 * of corrupting the JSON-RPC stream.
 */
export function reserveStdoutForProtocol(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout) as (
    chunk: string | Uint8Array,
    callback: (error?: Error | null) => void,
  ) => boolean;
  stdout.write = ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) =>
    process.stderr.write(
      chunk,
      encoding as BufferEncoding,
      callback as () => void,
    )) as typeof stdout.write;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      write(chunk, (error) => callback(error ?? null));
    },
  });
  stdout.on('error', (error) => output.destroy(error));
  return output;
}
