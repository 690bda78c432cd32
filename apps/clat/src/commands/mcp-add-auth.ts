/**
 * The authorization flags of `clat mcp add` for a server with a URL: Codex's
 * `--bearer-token-env-var`, and Claude Code's `--client-id`, `--client-secret` and
 * `--callback-port` for an OAuth client registered by hand.
 * @module
 */
import { redactSecrets, sanitizeTerminalLine } from '@clat/kernel';
import type { CommandIO } from '../command.js';
import { CliError, CliErrorCode } from '../errors.js';
import { askSecretLine, isTty } from '../ui/line-prompt.js';

/** The flag of each `oauth` field `clat mcp add` writes, for its errors. */
export const OAUTH_FLAGS: Readonly<Record<string, string>> = {
  clientId: '--client-id',
  clientSecret: '--client-secret',
  callbackPort: '--callback-port',
};

export interface OAuthFlags {
  clientId?: string;
  clientSecret?: string;
  callbackPort?: number;
}

/**
 * The `oauth` object of a client registered by hand: `--client-id`, `--callback-port` (the port
 * of its registered redirect URI) and `--client-secret`, which takes no value, as Claude Code's:
 * the secret comes from `MCP_CLIENT_SECRET` or is asked for on the terminal without echo, so it
 * never stands in the shell's history or in `ps`.
 */
export async function oauthFlags(
  values: { 'client-id'?: string; 'client-secret'?: boolean; 'callback-port'?: string },
  name: string,
  io: CommandIO,
): Promise<OAuthFlags | undefined> {
  const clientId = values['client-id'];
  const port = values['callback-port'];
  if (clientId === undefined && values['client-secret'] !== true && port === undefined)
    return undefined;
  const oauth: OAuthFlags = {};
  if (clientId !== undefined) oauth.clientId = clientId;
  if (port !== undefined) {
    if (!/^\d{1,5}$/.test(port)) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `clat mcp add: --callback-port must be a port number, 1 to 65535, not ${JSON.stringify(port.slice(0, 40))}`,
      );
    }
    oauth.callbackPort = Number(port);
  }
  if (values['client-secret'] !== true) return oauth;
  if (clientId === undefined) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      'clat mcp add: --client-secret is the secret of the client --client-id names; give --client-id too',
    );
  }
  const fromEnv = io.env.MCP_CLIENT_SECRET;
  if (fromEnv !== undefined && fromEnv !== '') {
    oauth.clientSecret = fromEnv;
    return oauth;
  }
  if (!isTty(io.stdin)) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      'clat mcp add: --client-secret: the secret comes from MCP_CLIENT_SECRET, or is asked for on a terminal, and there is none here; set MCP_CLIENT_SECRET for this command',
    );
  }
  const secret = await askSecretLine(
    io.stdin,
    io.stdout,
    `Client secret of ${JSON.stringify(clientId)} for ${sanitizeTerminalLine(name)} (not shown): `,
  );
  if (secret === '') {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      'clat mcp add: no client secret was given; nothing was written',
    );
  }
  oauth.clientSecret = secret;
  return oauth;
}

/**
 * Codex's `--bearer-token-env-var NAME`: an `Authorization: Bearer ${NAME}` header, expanded from
 * the environment at each start, so the token is written nowhere.
 */
export function bearerHeader(headers: Record<string, string>, variable: string): void {
  // A name that looks like a key (`ghp_…`) is one too: a token typed where its variable goes.
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable) || redactSecrets(variable) !== variable) {
    // It may be the token itself, pasted in the wrong place: named by its flag, never shown.
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      'clat mcp add: --bearer-token-env-var takes the name of an environment variable (letters, digits and _, not starting with a digit) that holds the token; its text is not shown, since it may be the token itself',
    );
  }
  if (Object.keys(headers).some((header) => header.toLowerCase() === 'authorization')) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      'clat mcp add: --bearer-token-env-var and --header "Authorization" both set the Authorization header; give one',
    );
  }
  headers.Authorization = `Bearer \${${variable}}`;
}
