/**
 * The trust gate, read exactly as `clat` reads it (`trust.json` in the CLAT home, keyed by the
 * canonical project root). Read-only: the gateway never trusts a project itself.
 * @module
 */

import { readFile, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeJsonSyntaxError, shellWord } from '@clat/kernel';
import { GatewayError, GatewayErrorCode } from './errors.js';

/** Reads a file, or `undefined` when it does not exist. */
export async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The canonical project root: absolute and symlink-free, so a link cannot borrow trust. */
export async function canonicalProjectRoot(project: string, cwd: string): Promise<string> {
  const absolute = resolve(cwd, project);
  try {
    return await realpath(absolute);
  } catch (error) {
    throw new GatewayError(
      GatewayErrorCode.USAGE,
      `project directory ${JSON.stringify(absolute)} does not exist`,
      { cause: error },
    );
  }
}

/** Throws GATEWAY_PROJECT_UNTRUSTED unless `root` is a key of `projects` in `trust.json`. */
export async function requireTrusted(home: string, root: string): Promise<void> {
  const trustFile = join(home, 'trust.json');
  const text = await readOptional(trustFile);
  let projects: unknown;
  if (text !== undefined) {
    try {
      projects = (JSON.parse(text) as { projects?: unknown } | null)?.projects;
    } catch {
      throw new GatewayError(
        GatewayErrorCode.CONFIG_INVALID,
        `${trustFile}: not valid JSON (${describeJsonSyntaxError(text)})`,
      );
    }
    if (typeof projects !== 'object' || projects === null || Array.isArray(projects)) {
      throw new GatewayError(
        GatewayErrorCode.CONFIG_INVALID,
        `${trustFile}: projects: must be an object`,
      );
    }
  }
  if (projects === undefined || !Object.hasOwn(projects as object, root)) {
    throw new GatewayError(
      GatewayErrorCode.PROJECT_UNTRUSTED,
      // The CLAT home named: an MCP client may start the gateway with another environment than
      // the shell where `clat trust` ran. The CLI may not be installed beside the gateway.
      `project ${root} is not trusted in ${trustFile}, so no MCP server was started; record it with "clat trust ${shellWord(root)}" (package @clat/cli, the same CLAT home), or add --trust to the gateway's arguments to serve it for this run`,
    );
  }
}
