/**
 * `inspect` and `package` run the plugin's own code (its module top level and `apply()`), so the
 * CLI does that in a child process that does not know where the user is: its working directory
 * is an empty temporary directory and its environment carries no working-directory variables,
 * CLAT settings or secrets (only PATH, HOME, TMPDIR and locale). The report comes back over IPC;
 * the plugin's own stdout/stderr never reach the command's output.
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DshAdapterError, DshErrorCode, describeError, isDshAdapterError } from '../errors.js';
import type { ToolHint } from '../seams/tools.js';
import type { PluginPackage } from './entry.js';
import { type InspectReport, inspectPlugin } from './inspect.js';

/** The hidden `clat-dsh` command the child runs. */
export const INSPECT_CHILD_COMMAND = '__inspect-child';

/** Told on stderr by every command that runs plugin code. */
export const RUNS_PLUGIN_CODE_NOTE =
  "note: this runs the plugin's code (its module and apply()) in a child process that is not given your working directory or environment\n";

const INSPECT_TIMEOUT_MS = 60_000;
/** Environment variables the child keeps: enough to run Node, nothing about the user's project. */
const KEPT_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'SYSTEMROOT'];

export interface InspectOptions {
  config?: unknown;
  toolHints?: Readonly<Record<string, ToolHint>>;
}

type Reply =
  | { ok: true; report: InspectReport }
  | { ok: false; code: DshErrorCode | undefined; message: string };

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of KEPT_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Runs {@link inspectPlugin} in a child process started from the `clat-dsh` bin at `bin`. */
export async function inspectInChild(
  bin: string,
  pkg: PluginPackage,
  options: InspectOptions,
): Promise<InspectReport> {
  const cwd = await mkdtemp(join(tmpdir(), 'clat-dsh-inspect-'));
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, [bin, INSPECT_CHILD_COMMAND], {
      cwd,
      env: childEnv(),
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const running = child;
    let stderr = '';
    running.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2_000);
    });
    const reply = await new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new DshAdapterError(
              DshErrorCode.PLUGIN_NOT_LOADABLE,
              `inspecting ${pkg.entry} did not finish within ${INSPECT_TIMEOUT_MS / 1000} s`,
            ),
          ),
        INSPECT_TIMEOUT_MS,
      );
      running.once('message', (message: Reply) => {
        clearTimeout(timer);
        resolve(message);
      });
      running.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      running.once('exit', (code, signal) => {
        clearTimeout(timer);
        const tail = stderr.trim().split('\n').at(-1);
        reject(
          new DshAdapterError(
            DshErrorCode.PLUGIN_NOT_LOADABLE,
            `inspecting ${pkg.entry} ended (${signal ?? `exit code ${code}`}) before reporting${tail === undefined || tail === '' ? '' : `: ${tail}`}`,
          ),
        );
      });
      running.send({ pkg, options });
    });
    if (!reply.ok) {
      throw new DshAdapterError(reply.code ?? DshErrorCode.PLUGIN_NOT_LOADABLE, reply.message);
    }
    return reply.report;
  } finally {
    // The plugin may have left timers or servers running; the report is all we wanted.
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
    await rm(cwd, { recursive: true, force: true });
  }
}

/** The child side: one request over IPC, one reply, then exit. */
export function serveInspectChild(): Promise<number> {
  return new Promise((resolve) => {
    process.once('message', (message: { pkg: PluginPackage; options: InspectOptions }) => {
      void (async () => {
        let reply: Reply;
        try {
          reply = { ok: true, report: await inspectPlugin(message.pkg, message.options) };
        } catch (error) {
          reply = {
            ok: false,
            code: isDshAdapterError(error) ? error.code : undefined,
            message: isDshAdapterError(error) ? error.message : describeError(error),
          };
        }
        process.send?.(reply, () => {
          process.disconnect?.();
          resolve(0);
        });
      })();
    });
  });
}
