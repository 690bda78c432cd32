/** `clat-gateway` arguments and environment. @module */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  DEFAULT_PERMISSION_MODE,
  isPermissionMode,
  LIMITS,
  PERMISSION_MODES,
  type PermissionMode,
} from '@clat/kernel';
import { GatewayError, GatewayErrorCode } from './errors.js';

export interface GatewayArgs {
  project: string;
  mode: PermissionMode;
  help: boolean;
  /** `--version`: print the version and exit. */
  version: boolean;
  /** `--http host:port`, validated later (with `allowRemote`). */
  http: string | undefined;
  allowRemote: boolean;
  /** `--wait <seconds>`: how long the first listing and call wait for slow plugins. */
  waitMs: number;
  /** `--trust`: serve the project for this run though `trust.json` does not list it. */
  trust: boolean;
}

/** `--wait` accepts whole seconds up to this (the kernel's default is 20). */
const MAX_WAIT_SECONDS = 600;

export const USAGE = `Usage: clat-gateway --project <dir> [--mode ${PERMISSION_MODES.join('|')}]
                    [--http 127.0.0.1:<port> [--allow-remote]] [--wait <seconds>] [--trust]
       clat-gateway --help | --version

Serves the trusted project's CLAT tools (native tools, the MCP servers of ~/.clat/mcp.json and
<dir>/.clat/mcp.json, plugins.json WASM components, installed packages, the GLM pack) as one MCP
server over stdio, or with --http over Streamable HTTP at /mcp behind a bearer token printed once
on stderr (loopback only unless --allow-remote). The first listing and the first call wait up to
--wait seconds (default ${LIMITS.initialSurfaceWaitMs / 1000}) for slow plugins; the first call then freezes the tool set.
The project must be trusted (\`clat trust <dir>\` records it in the CLAT home's trust.json);
--trust serves it for this run without a record, for a machine without the clat CLI.
`;

export function parseGatewayArgs(argv: readonly string[]): GatewayArgs {
  const out: GatewayArgs = {
    project: '',
    mode: DEFAULT_PERMISSION_MODE,
    help: false,
    version: false,
    http: undefined,
    allowRemote: false,
    waitMs: LIMITS.initialSurfaceWaitMs,
    trust: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = (): string => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === '') {
        throw new GatewayError(GatewayErrorCode.USAGE, `${flag} needs a value`);
      }
      return next;
    };
    if (flag === '--help' || flag === '-h') out.help = true;
    else if (flag === '--version') out.version = true;
    else if (flag === '--project') out.project = value();
    else if (flag === '--http') out.http = value();
    else if (flag === '--allow-remote') out.allowRemote = true;
    else if (flag === '--trust') out.trust = true;
    else if (flag === '--wait') {
      const seconds = value();
      if (!/^\d+$/.test(seconds) || Number(seconds) > MAX_WAIT_SECONDS) {
        throw new GatewayError(
          GatewayErrorCode.USAGE,
          `--wait ${JSON.stringify(seconds)} is not a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`,
        );
      }
      out.waitMs = Number(seconds) * 1000;
    } else if (flag === '--mode') {
      const mode = value();
      if (!isPermissionMode(mode)) {
        throw new GatewayError(
          GatewayErrorCode.USAGE,
          `--mode ${JSON.stringify(mode)} is not a mode; use one of ${PERMISSION_MODES.join(', ')}`,
        );
      }
      out.mode = mode;
    } else {
      throw new GatewayError(
        GatewayErrorCode.USAGE,
        `unknown argument ${JSON.stringify(arg)}; see clat-gateway --help`,
      );
    }
  }
  if (!out.help && !out.version && out.project === '') {
    throw new GatewayError(GatewayErrorCode.USAGE, '--project <dir> is required');
  }
  return out;
}

/**
 * The CLAT home the gateway reads: `$CLAT_HOME` (relative to `cwd`) or `~/.clat`, the rule of
 * `clat`'s `resolveClatHome`. A distribution never depends on `@clat/cli`, so the binary's edge
 * reads it here and passes the path on; test/gateway/clat-home.test.ts pins that both agree.
 */
export function gatewayClatHome(env: NodeJS.ProcessEnv, cwd: string): string {
  const override = env.CLAT_HOME?.trim();
  return override ? resolve(cwd, override) : join(homedir(), '.clat');
}
