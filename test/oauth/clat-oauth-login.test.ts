/**
 * OAuth journeys through the real `clat` binary against a real OpenID provider (oidc-provider)
 * and a protected MCP server on 127.0.0.1: needs login → `clat mcp login` via $BROWSER →
 * connected → refresh on invalid_token → revoked refresh back to needs login → logout. Tokens
 * are read from the token file by the test only, and must appear in no output.
 * @module
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeModelProvider, startFakeChatServer } from '../cli/chat-server.js';
import { assertBuilt, type ClatResult, CliSandbox, parseJsonOutput } from '../cli/support.js';
import {
  BROWSER,
  type OAuthWorld,
  readTokenFile,
  startOAuthWorld,
  type TokenFile,
} from './oauth-world.js';

interface StatusJson {
  needsLogin: number;
  servers: { name: string; state: string; tools: number; login?: string; failure?: string }[];
}

let sandbox: CliSandbox;
let world: OAuthWorld;
let as: OAuthWorld['as'];
let mcp: OAuthWorld['mcp'];
const outputs: string[] = [];

async function clat(args: string[], env: Record<string, string> = {}): Promise<ClatResult> {
  const result = await sandbox.run(args, { env: { BROWSER, ...env } });
  outputs.push(result.stdout, result.stderr);
  return result;
}

const tokenFile = () => readTokenFile(sandbox.home);

beforeAll(assertBuilt);
beforeEach(async () => {
  outputs.length = 0;
  sandbox = new CliSandbox();
  await sandbox.setup();
  world = await startOAuthWorld(sandbox);
  ({ as, mcp } = world);
  await clat(['trust']);
});
afterEach(async () => {
  await world?.close();
  await sandbox.cleanup();
});

describe('clat mcp login against an OpenID provider', () => {
  it('shows needs login, logs in through $BROWSER, refreshes, and falls back after revocation', async () => {
    const before = parseJsonOutput<StatusJson>(await clat(['mcp', '--json']));
    expect(before.needsLogin).toBe(1);
    expect(before.servers[0]).toMatchObject({
      name: 'remote',
      state: 'needs-login',
      login: 'clat mcp login remote',
    });
    const text = await clat(['mcp']);
    expect(text.stdout).toContain('needs login');
    expect(text.stdout).toContain('to log in, run: clat mcp login remote');
    expect(text.stdout).not.toContain('error:');

    const login = await clat(['mcp', 'login', 'remote']);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`${as.issuer}/auth?`);
    expect(login.stdout).toContain('code_challenge_method=S256');
    expect(login.stdout).toContain(`resource=${encodeURIComponent(mcp.url)}`);
    expect(login.stdout).toMatch(/Logged in to remote at http:\/\/127\.0\.0\.1:\d+ with scope/);

    const { path, record } = await tokenFile();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(sandbox.home, 'oauth'))).mode & 0o777).toBe(0o700);
    expect(record.serverUrl).toBe(mcp.url);
    expect(record.issuer).toBe(as.issuer);
    expect(record.client.source).toBe('registration');
    expect(record.tokens.refreshToken).toBeDefined();
    expect(JSON.stringify(await sandbox.readMcp())).not.toContain(record.tokens.accessToken);

    // The login as `clat mcp list|get` show it, from the token file alone (never the tokens).
    const listedLogin = parseJsonOutput<{ login?: Record<string, unknown> }>(
      await clat(['mcp', 'get', 'remote', '--json']),
    ).login;
    expect(listedLogin).toEqual({
      issuer: as.issuer,
      scope: expect.stringContaining('mcp:read'),
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      refreshable: true,
    });
    expect(Date.parse(String(listedLogin?.expiresAt)) - Date.now()).toBeGreaterThan(50 * 60_000);
    const listedText = await clat(['mcp', 'list']);
    expect(listedText.stdout).toContain(
      `  remote  http  ${mcp.url}  (logged in at ${as.issuer}, scope "${String(listedLogin?.scope)}", expires in 60 min)`,
    );
    const after = parseJsonOutput<StatusJson>(await clat(['mcp', '--json']));
    expect(after.servers[0]).toMatchObject({ name: 'remote', state: 'connected' });
    expect(after.servers[0]?.tools).toBe(2);
    expect(mcp.authorizations).toContain(`Bearer ${record.tokens.accessToken}`);

    // Step-up: the admin tool needs mcp:admin. Headless, the call names the login command; the
    // next login asks for the union of scopes, and the call then succeeds.
    const denied = await clat(['call', 'mcp_remote_admin', '{}']);
    expect(denied.code).not.toBe(0);
    expect(`${denied.stdout}${denied.stderr}`).toMatch(/needs more scope.*clat mcp login remote/);
    const again = await clat(['mcp', 'login', 'remote']);
    expect(again.code).toBe(0);
    const url = new URL(/^ {2}(http\S+)$/m.exec(again.stdout)?.[1] ?? 'http://none');
    expect(url.searchParams.get('scope')).toBe('mcp:read mcp:admin offline_access');
    // The registered client is reused on its registered redirect URI (same loopback port), so
    // an authorization server that matches it exactly accepts the second login too.
    const firstUrl = new URL(/^ {2}(http\S+)$/m.exec(login.stdout)?.[1] ?? 'http://none');
    expect(url.searchParams.get('redirect_uri')).toBe(firstUrl.searchParams.get('redirect_uri'));
    expect(url.searchParams.get('client_id')).toBe(record.client.clientId);
    const allowed = await clat(['call', 'mcp_remote_admin', '{}']);
    expect(allowed.stdout).toContain('admin done');
    const stepped = await tokenFile();
    // An access token past its expiry, with a refresh token: listed as renewed at the next start.
    const raw = JSON.parse(await readFile(stepped.path, 'utf8')) as {
      tokens: { expiresAt?: number };
    };
    raw.tokens.expiresAt = Date.now() - 1000;
    await writeFile(stepped.path, JSON.stringify(raw), { mode: 0o600 });
    expect((await clat(['mcp', 'get', 'remote'])).stdout).toContain(
      ', token expired, refreshed at the next start)',
    );

    // The access token ends early: the server answers invalid_token and the client refreshes
    // (the provider rotates the refresh token) without a browser.
    await as.expireAccessToken(stepped.record.tokens.accessToken);
    const refreshed = parseJsonOutput<StatusJson>(await clat(['mcp', '--json']));
    expect(refreshed.servers[0]?.state).toBe('connected');
    const rotated = (await tokenFile()).record;
    expect(rotated.tokens.accessToken).not.toBe(stepped.record.tokens.accessToken);
    expect(rotated.tokens.refreshToken).not.toBe(stepped.record.tokens.refreshToken);

    // A revoked refresh token (the provider revokes its whole grant): back to needs login.
    expect(await as.revoke(rotated.tokens.refreshToken ?? '', rotated.client.clientId)).toBe(200);
    const revoked = parseJsonOutput<StatusJson>(await clat(['mcp', '--json']));
    expect(revoked.servers[0]).toMatchObject({
      state: 'needs-login',
      login: 'clat mcp login remote',
    });
    // Why, in the run that found out: the provider refused the stored login.
    expect(revoked.servers[0]?.failure).toContain(
      'needs login (its stored login was refused at the refresh: invalid_grant, revoked or expired)',
    );

    // A login file damaged meanwhile (cut short by a full disk): the logout deletes it, and
    // says so rather than "no stored login".
    const [stored] = (await readdir(join(sandbox.home, 'oauth'))).filter((name) =>
      name.endsWith('.json'),
    );
    const damaged = join(sandbox.home, 'oauth', stored as string);
    await writeFile(damaged, '{"version":1,"serverUrl":');
    // The listing says why the login is not used, rather than showing none.
    expect((await clat(['mcp', 'get', 'remote'])).stdout).toContain(
      `login not used: ${damaged} is not valid JSON (it was cut short or changed); "clat mcp login remote" logs in again, replacing it)`,
    );
    expect(
      parseJsonOutput<{ loginProblem?: string }>(await clat(['mcp', 'get', 'remote', '--json']))
        .loginProblem,
    ).toMatch(/^login not used: .* is not valid JSON/);
    const logout = await clat(['mcp', 'logout', 'remote']);
    expect(logout.stdout).toContain('Logged out of remote');
    expect(await readdir(join(sandbox.home, 'oauth'))).toEqual([]);
    expect((await clat(['mcp', 'get', 'remote'])).stdout).not.toContain('logged in');
    expect(
      parseJsonOutput<{ login?: unknown }>(await clat(['mcp', 'get', 'remote', '--json'])).login,
    ).toBeUndefined();

    for (const secret of [
      record.tokens.accessToken,
      record.tokens.refreshToken ?? '',
      stepped.record.tokens.accessToken,
      stepped.record.tokens.refreshToken ?? '',
      rotated.tokens.accessToken,
      rotated.tokens.refreshToken ?? '',
    ]) {
      for (const output of outputs) expect(output).not.toContain(secret);
    }
  });

  it('keeps the login when the token endpoint is down during a refresh, and refreshes once it is back', async () => {
    expect((await clat(['mcp', 'login', 'remote'])).code).toBe(0);
    const { record } = await tokenFile();
    await as.expireAccessToken(record.tokens.accessToken);
    as.tokenEndpointDown(true);
    const down = parseJsonOutput<StatusJson>(await clat(['mcp', '--json']));
    expect(down.needsLogin).toBe(0);
    expect(down.servers[0]?.state).toBe('failed');
    expect(down.servers[0]?.failure).toMatch(
      /could not be refreshed: .*HTTP 503.*; the login is kept, and the next request tries again/,
    );
    // An HTTP server has no stderr: the failure is said once, and its tail is named for what it is.
    expect(down.servers[0]?.failure).not.toContain('server stderr');
    expect(down.servers[0]?.failure?.match(/could not be refreshed/g)).toHaveLength(1);
    const text = await clat(['mcp']);
    expect(text.stdout).not.toContain('clat mcp login');
    // The text view says the failure once too: the tail line the error quotes is not repeated.
    expect(text.stdout.match(/could not be refreshed/g)).toHaveLength(1);
    expect(text.stdout).not.toContain('stderr (last');
    // Nothing was thrown away: the same refresh token is still on disk.
    expect((await tokenFile()).record.tokens.refreshToken).toBe(record.tokens.refreshToken);

    as.tokenEndpointDown(false);
    const back = parseJsonOutput<StatusJson>(await clat(['mcp', '--json']));
    expect(back.servers[0]).toMatchObject({ name: 'remote', state: 'connected' });
    const rotated = (await tokenFile()).record;
    expect(rotated.tokens.refreshToken).not.toBe(record.tokens.refreshToken);
    for (const secret of [record.tokens.accessToken, record.tokens.refreshToken ?? ''])
      for (const output of outputs) expect(output).not.toContain(secret);
  });

  it('keeps the login when several clat processes refresh the same expired token at once', async () => {
    expect((await clat(['mcp', 'login', 'remote'])).code).toBe(0);
    const { path, record } = await tokenFile();
    // Its lifetime has passed (as after an hour): every process refreshes before its first
    // request. The provider rotates refresh tokens, so only one may spend the stored one; the
    // others use what it saved instead of dropping it.
    await writeFile(
      path,
      JSON.stringify({ ...record, tokens: { ...record.tokens, expiresAt: Date.now() - 1_000 } }),
      { mode: 0o600 },
    );
    const calls = await Promise.all(
      Array.from({ length: 4 }, () => clat(['call', 'mcp_remote_whoami', '{}'])),
    );
    for (const call of calls) {
      expect(call.stderr).not.toContain('needs login');
      expect(call.code, call.stderr).toBe(0);
    }
    const after = (await tokenFile()).record;
    expect(after.tokens.refreshToken).not.toBe(record.tokens.refreshToken);
    const next = parseJsonOutput<StatusJson>(await clat(['mcp', '--json']));
    expect(next.servers[0]?.state).toBe('connected');
    expect(await readdir(join(sandbox.home, 'oauth'))).toHaveLength(1);
    for (const secret of [after.tokens.accessToken, after.tokens.refreshToken ?? ''])
      for (const output of outputs) expect(output).not.toContain(secret);
  });

  it('logout and remove revoke the tokens at the provider; removing one of two entries of a URL keeps the login', async () => {
    const revoked = `the authorization server ${as.issuer} revoked its tokens, and its stored tokens and registered client were deleted`;
    const gone = async (tokens: TokenFile['tokens']) => {
      expect(await as.provider.AccessToken.find(tokens.accessToken)).toBeUndefined();
      expect(await as.provider.RefreshToken.find(tokens.refreshToken ?? '')).toBeUndefined();
    };
    expect((await clat(['mcp', 'login', 'remote'])).code).toBe(0);
    const first = (await tokenFile()).record;
    expect(await as.provider.AccessToken.find(first.tokens.accessToken)).toBeDefined();
    const logout = await clat(['mcp', 'logout', 'remote']);
    expect(logout.stderr).toBe('');
    expect(logout.stdout).toBe(`Logged out of remote; ${revoked}\n`);
    await gone(first.tokens);
    expect(await readdir(join(sandbox.home, 'oauth'))).toEqual([]);

    // A second entry of the same URL shares its tokens: removing it leaves them alone.
    expect((await clat(['mcp', 'add', 'mirror', '--url', mcp.url])).code).toBe(0);
    expect((await clat(['mcp', 'login', 'remote'])).code).toBe(0);
    // Logging out of one of them logs out of both, and says so.
    const shared = await clat(['mcp', 'logout', 'mirror']);
    expect(shared.stdout).toBe(
      `Logged out of mirror (and of remote, which connects to the same URL); ${revoked}\n`,
    );
    expect((await clat(['mcp', 'login', 'remote'])).code).toBe(0);
    const second = (await tokenFile()).record;
    const mirror = await clat(['mcp', 'remove', 'mirror']);
    expect(mirror.stdout).toBe(`Removed server "mirror" from ${join(sandbox.home, 'mcp.json')}\n`);
    expect((await tokenFile()).record.tokens.accessToken).toBe(second.tokens.accessToken);
    expect((await clat(['call', 'mcp_remote_whoami', '{}'])).code).toBe(0);

    // The last entry goes: its login goes with it, revoked first, so `logout` is not needed
    // (it could no longer name the server).
    const removed = await clat(['mcp', 'remove', 'remote']);
    expect(removed.stderr).toBe('');
    expect(removed.stdout).toBe(
      `Removed server "remote" from ${join(sandbox.home, 'mcp.json')}; ${revoked}\n`,
    );
    await gone(second.tokens);
    expect(await readdir(join(sandbox.home, 'oauth'))).toEqual([]);
    for (const secret of [
      first.tokens.accessToken,
      first.tokens.refreshToken ?? '',
      second.tokens.accessToken,
      second.tokens.refreshToken ?? '',
    ])
      for (const output of outputs) expect(output).not.toContain(secret);
  });

  it('a server that refuses a valid login with 403 blames the login, not headers the entry does not have', async () => {
    expect((await clat(['mcp', 'login', 'remote'])).code).toBe(0);
    mcp.forbidden = true;
    const status = parseJsonOutput<StatusJson>(await clat(['mcp', '--json']));
    expect(status.servers[0]?.state).toBe('failed');
    expect(status.servers[0]?.failure).toContain(
      'with HTTP 403 (the server refused the token of its login: it may lack access, or log in again): this account is suspended',
    );
    expect(status.servers[0]?.failure).not.toContain('configured headers');
    // The login is kept: a refused request is no refused grant.
    expect((await tokenFile()).record.tokens.accessToken).toBeTruthy();
  });

  it("a denied login says why, in the authorization server's words, and stores nothing", async () => {
    as.denyLogins('You are not a member of the "mcp-users" group');
    const denied = await clat(['mcp', 'login', 'remote']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(
      'was refused (access_denied: You are not a member of the "mcp-users" group)',
    );
    const stored = await tokenFile().catch(() => undefined);
    expect(stored?.record.tokens).toBeUndefined();
    as.denyLogins(undefined);
    const login = await clat(['mcp', 'login', 'remote']);
    expect(login.code).toBe(0);
    expect(login.stdout).not.toContain('with scope ""');
  });

  it('clat tools <server> prints a hostile server name in its login line sanitised', async () => {
    // A project's .clat/mcp.json names its servers; JSON.stringify keeps C1 and bidi characters.
    const name = 'rem\u202eote\u009b2J';
    await sandbox.writeMcp({ mcpServers: { [name]: { url: mcp.url } } });
    const result = await clat(['tools', name]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'clat: server "rem\\u202eote\\x9b2J" needs login; run `clat mcp login \'rem\\u202eote\\x9b2J\'`\n',
    );
  });

  it('--scopes asks for exactly the scopes given, says what was not granted, and can take less than the server asks', async () => {
    const scopeOf = (result: ClatResult) =>
      new URL(/^ {2}(http\S+)$/m.exec(result.stdout)?.[1] ?? 'http://none').searchParams.get(
        'scope',
      );
    // Refused before anything is asked: no browser, no token file, the value named.
    for (const [args, message] of [
      [['--scopes', ' , '], '--scopes needs at least one OAuth scope, comma-separated'],
      [['--scopes', 'mcp:read,"admin"'], '--scopes: "\\"admin\\"" is not an OAuth scope'],
    ] as const) {
      const refused = await clat(['mcp', 'login', 'remote', ...args]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(message);
      expect(refused.stdout).toBe('');
    }
    await expect(readTokenFile(sandbox.home)).rejects.toThrow();
    const logoutScopes = await clat(['mcp', 'logout', 'remote', '--scopes', 'mcp:read']);
    expect(logoutScopes.stderr).toContain('unknown option "--scopes" for clat mcp logout');

    // Comma- and space-separated, repeated: one request with each scope once, in order, so the
    // admin tool works without a step-up; the provider does not know mcp:write and leaves it out.
    const wide = await clat([
      'mcp',
      'login',
      'remote',
      '--scopes',
      'mcp:read,mcp:admin',
      '--scopes=mcp:write mcp:read',
    ]);
    expect(wide.stderr).toBe('');
    expect(wide.code).toBe(0);
    expect(scopeOf(wide)).toBe('mcp:read mcp:admin mcp:write offline_access');
    expect(wide.stdout).toMatch(/with scope "[^"]*mcp:admin[^"]*" \(not granted: mcp:write\);/);
    expect((await clat(['call', 'mcp_remote_admin', '{}'])).stdout).toContain('admin done');

    // Less than before: the remembered mcp:admin is not asked for, and the admin call is refused.
    const narrow = await clat(['mcp', 'login', 'remote', '--scopes', 'mcp:read']);
    expect(narrow.code).toBe(0);
    expect(scopeOf(narrow)).toBe('mcp:read offline_access');
    expect(narrow.stdout).not.toContain('not granted');
    const denied = await clat(['call', 'mcp_remote_admin', '{}']);
    expect(`${denied.stdout}${denied.stderr}`).toMatch(/needs more scope.*clat mcp login remote/);
    // A plain login then asks for what was given and what the refusal named.
    const plain = await clat(['mcp', 'login', 'remote']);
    expect(scopeOf(plain)).toBe('mcp:read mcp:admin offline_access');
    expect((await clat(['call', 'mcp_remote_admin', '{}'])).stdout).toContain('admin done');
  });

  it('--scopes is refused for a client_credentials entry, naming where its scopes are set', async () => {
    await sandbox.writeMcp({
      mcpServers: {
        remote: {
          url: mcp.url,
          oauth: { clientId: 'machine', clientSecret: 'm', grant: 'client_credentials' },
        },
      },
    });
    const refused = await clat(['mcp', 'login', 'remote', '--scopes', 'mcp:read']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--scopes applies to a browser login; server "remote" uses the client_credentials grant, whose scopes are "oauth.scopes" in',
    );
  });

  it('headless exec never opens a browser and names the login command', async () => {
    const log = join(sandbox.root, 'browser.log');
    const chat = await startFakeChatServer([{ text: 'no tools needed' }]);
    try {
      await sandbox.writeConfig({ provider: fakeModelProvider(chat.url, 'E2E_PROVIDER_KEY') });
      const result = await clat(['exec', 'hello'], {
        OAUTH_BROWSER_LOG: log,
        E2E_PROVIDER_KEY: 'sk-e2e-provider-key-0123456789',
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('no tools needed');
      expect(result.stderr).toContain(
        'clat: MCP server remote needs login; run `clat mcp login remote`',
      );
      await expect(stat(log)).rejects.toThrow();
      expect(mcp.authorizations).toEqual([]);
    } finally {
      await chat.close();
    }
  });

  it('an HTTP+SSE server behind OAuth: needs login, logs in through the stream GET challenge, then calls', async () => {
    // This test's world: the same provider, the MCP server on HTTP+SSE (GET /sse; a POST there
    // has no route, so only the GET carries the 401 challenge).
    await world.close();
    world = await startOAuthWorld(sandbox, { sse: true, challengeScope: 'mcp:read mcp:admin' });
    ({ as, mcp } = world);
    expect(mcp.url).toMatch(/\/sse$/);

    const before = parseJsonOutput<StatusJson>(await clat(['mcp', '--json']));
    expect(before.servers[0]).toMatchObject({
      name: 'remote',
      state: 'needs-login',
      login: 'clat mcp login remote',
    });

    const login = await clat(['mcp', 'login', 'remote']);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`resource=${encodeURIComponent(mcp.url)}`);
    // The scope the stream GET's challenge named (the metadata alone says only mcp:read).
    const url = new URL(/^ {2}(http\S+)$/m.exec(login.stdout)?.[1] ?? 'http://none');
    expect(url.searchParams.get('scope')).toBe('mcp:read mcp:admin offline_access');
    expect(login.stdout).toMatch(/Logged in to remote at http:\/\/127\.0\.0\.1:\d+ with scope/);
    const { record } = await tokenFile();
    expect(record.serverUrl).toBe(mcp.url);

    const after = parseJsonOutput<StatusJson & { servers: { transport: string }[] }>(
      await clat(['mcp', '--json']),
    );
    expect(after.servers[0]).toMatchObject({ state: 'connected', transport: 'sse', tools: 2 });
    const call = await clat(['call', 'mcp_remote_whoami', '{}']);
    expect(call.stdout).toBe('hello, authorized caller\n');
    expect(mcp.served).toContain('tools/call');
    expect(mcp.authorizations).toContain(`Bearer ${record.tokens.accessToken}`);
    for (const output of outputs) {
      expect(output).not.toContain(record.tokens.accessToken);
      expect(output).not.toContain(record.tokens.refreshToken ?? 'no refresh token');
    }
  });
});
