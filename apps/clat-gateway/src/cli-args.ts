/** `clat-gateway` arguments. @module */
import {
  DEFAULT_PERMISSION_MODE,
  isPermissionMode,
  PERMISSION_MODES,
  type PermissionMode,
} from '@clat/kernel';
import { GatewayError, GatewayErrorCode } from './errors.js';

export interface GatewayArgs {
  project: string;
  mode: PermissionMode;
  help: boolean;
  /** `--http host:port`, validated later (with `allowRemote`). */
  http: string | undefined;
  allowRemote: boolean;
}

export const USAGE = `Usage: clat-gateway --project <dir> [--mode ${PERMISSION_MODES.join('|')}]
                    [--http 127.0.0.1:<port> [--allow-remote]]

Serves the trusted project's CLAT tools (native tools and the MCP servers of ~/.clat/mcp.json and
<dir>/.clat/mcp.json) as one MCP server over stdio, or with --http over Streamable HTTP at /mcp behind a bearer token
printed once on stderr (loopback only unless --allow-remote).
`;

export function parseGatewayArgs(argv: readonly string[]): GatewayArgs {
  const out: GatewayArgs = {
    project: '',
    mode: DEFAULT_PERMISSION_MODE,
    help: false,
    http: undefined,
    allowRemote: false,
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
    else if (flag === '--project') out.project = value();
    else if (flag === '--http') out.http = value();
    else if (flag === '--allow-remote') out.allowRemote = true;
    else if (flag === '--mode') {
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
  if (!out.help && out.project === '') {
    throw new GatewayError(GatewayErrorCode.USAGE, '--project <dir> is required');
  }
  return out;
}
