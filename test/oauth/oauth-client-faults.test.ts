/**
 * The OAuth client of @clat/adapter-mcp-http against real servers on 127.0.0.1 with injected
 * faults: a configurable authorization server (mini-as) and the protected SDK v2 MCP server.
 * The browser is an in-process redirect follower; the binary journeys are in clat-oauth-login.
 * @module
 */

import { createServer } from 'node:http';
import {
  authorizationServerMetadataUrls,
  type BrowserLeg,
  discoverAuthorizationServer,
  HttpTransport,
  OAuthClient,
  type OAuthClientConfig,
  type OAuthRecord,
  type TokenStore,
} from '@clat/adapter-mcp-http';
import { afterEach, describe, expect, it } from 'vitest';
import { type MiniAs, type MiniAsBehaviour, startMiniAs } from '../fixtures/oauth/mini-as.js';
import {
  type ProtectedServer,
  startProtectedMcpServer,
} from '../fixtures/oauth/protected-mcp-server.js';
import { MODERN, rawPeer } from '../mcp-http/rpc-helper.js';

let as: MiniAs | undefined;
let mcp: ProtectedServer | undefined;
const transports: HttpTransport[] = [];

afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  await mcp?.close();
  await as?.close();
  mcp = undefined;
  as = undefined;
});

function memoryStore() {
  const records = new Map<string, OAuthRecord>();
  let writes = 0;
  const store: TokenStore = {
    read: async (url) => structuredClone(records.get(url)),
    write: async (record) => {
      writes++;
      records.set(record.serverUrl, structuredClone(record));
    },
    remove: async (url) => records.delete(url),
  };
  return { store, records, writes: () => writes };
}

/** Follows redirects like a browser until the loopback callback answered. */
async function browse(start: string): Promise<void> {
  let url = new URL(start);
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(url, { redirect: 'manual' });
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (location === null) return;
    url = new URL(location, url);
  }
}

function browser(opened: string[] = []): BrowserLeg {
  return {
    signal: new AbortController().signal,
    timeoutMs: 10_000,
    open: (url) => {
      opened.push(url);
      void browse(url);
    },
  };
}

async function setup(
  behaviour: Partial<MiniAsBehaviour> = {},
  prm?: (self: { resource: string; issuer: string }) => Record<string, unknown> | undefined,
) {
  as = await startMiniAs(behaviour);
  const issuer = as.issuer;
  const server = as;
  mcp = await startProtectedMcpServer({
    validate: (token, resource) => server.validate(token, resource),
    metadata: ({ resource }) =>
      prm === undefined
        ? { resource, authorization_servers: [issuer], scopes_supported: ['mcp:read'] }
        : prm({ resource, issuer }),
  });
  return { as, mcp };
}

function client(
  config?: OAuthClientConfig,
  extra: Partial<ConstructorParameters<typeof OAuthClient>[0]> = {},
) {
  const memory = memoryStore();
  const oauth = new OAuthClient({
    serverUrl: mcp?.url ?? '',
    store: memory.store,
    config,
    loginHint: 'run `clat mcp login remote`',
    ...extra,
  });
  return { oauth, ...memory };
}

function peer(oauth: OAuthClient) {
  const transport = new HttpTransport({ url: mcp?.url ?? '', auth: oauth });
  transports.push(transport);
  return rawPeer(transport);
}

const meta = {
  _meta: {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
  },
};

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
  return 'resolved';
}

describe('OAuth client against an injectable authorization server', () => {
  it('registers (DCR), authorizes with PKCE S256, state, resource and scopes, and checks iss', async () => {
    await setup();
    const { oauth, records } = client();
    const opened: string[] = [];
    const result = await oauth.login(browser(opened));
    expect(result.refreshable).toBe(true);
    const [registration] = as?.registrations ?? [];
    expect(registration).toMatchObject({
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(String((registration?.redirect_uris as string[] | undefined)?.[0])).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
    );
    const authorize = as?.authorizeRequests[0];
    expect(authorize?.get('code_challenge_method')).toBe('S256');
    expect(authorize?.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorize?.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(authorize?.get('resource')).toBe(mcp?.url);
    // PRM scopes_supported, plus offline_access because the AS lists it.
    expect(authorize?.get('scope')).toBe('mcp:read offline_access');
    expect(authorize?.get('prompt')).toBe('consent');
    expect(as?.tokenRequests).toEqual([
      { grant: 'authorization_code', resource: mcp?.url, auth: 'none', scope: null },
    ]);
    const record = records.get(mcp?.url ?? '');
    expect(record?.issuer).toBe(as?.issuer);
    expect(record?.client?.source).toBe('registration');

    const raw = peer(oauth);
    const discover = await raw.request('server/discover', meta);
    expect('result' in discover).toBe(true);
    expect(mcp?.authorizations).toEqual([`Bearer ${record?.tokens?.accessToken}`]);
  });

  it.each([
    ['oauth', '/tenant1'],
    ['oidc-inserted', '/tenant1'],
    ['oidc-appended', '/tenant1'],
    ['oauth', ''],
  ] as const)('finds metadata served at %s for issuer path %j', async (metadataAt, issuerPath) => {
    await setup({ metadataAt, issuerPath });
    const { oauth } = client();
    await expect(oauth.login(browser())).resolves.toMatchObject({ issuer: as?.issuer });
  });

  it('builds the metadata URLs in the spec order', () => {
    expect(authorizationServerMetadataUrls(new URL('https://a.example/t1')).map(String)).toEqual([
      'https://a.example/.well-known/oauth-authorization-server/t1',
      'https://a.example/.well-known/openid-configuration/t1',
      'https://a.example/t1/.well-known/openid-configuration',
    ]);
  });

  it('refuses metadata whose issuer differs, before any authorization request', async () => {
    await setup({ claimedIssuer: 'http://127.0.0.1:1' });
    const { oauth, records } = client();
    const opened: string[] = [];
    expect(await codeOf(oauth.login(browser(opened)))).toMatch(
      /^OAUTH_DISCOVERY: .*expected issuer/,
    );
    expect(opened).toEqual([]);
    expect(records.size).toBe(0);
  });

  it('refuses protected resource metadata that names another server', async () => {
    await setup({}, ({ issuer }) => ({
      resource: 'http://127.0.0.1:1/mcp',
      authorization_servers: [issuer],
    }));
    const { oauth } = client();
    expect(await codeOf(oauth.login(browser()))).toMatch(/^OAUTH_DISCOVERY: .*not this server/);
    expect(as?.registrations).toEqual([]);
  });

  it('refuses an authorization server without PKCE S256', async () => {
    await setup({ s256: false });
    const { oauth } = client();
    expect(await codeOf(oauth.login(browser()))).toMatch(/^OAUTH_DISCOVERY: .*PKCE S256/);
  });

  it.each([
    ['wrong', true],
    ['absent', true],
  ] as const)(
    'rejects a redirect whose iss is %s (advertised %s) and redeems nothing',
    async (iss, issSupported) => {
      await setup({ iss, issSupported });
      const { oauth } = client();
      expect(await codeOf(oauth.login(browser()))).toMatch(/^OAUTH_AUTHORIZATION: /);
      expect(as?.tokenRequests).toEqual([]);
    },
  );

  it.each([
    [['client_secret_basic', 'client_secret_post'], 'client_secret_basic'],
    [['client_secret_post'], 'client_secret_post'],
  ])(
    'uses a pre-registered client with a secret (methods %j → %s), no registration',
    async (methods, expected) => {
      await setup({ authMethods: methods });
      as?.clients.set('pre-1', { secret: 'pre-secret-0123456789', method: expected });
      const { oauth, records } = client({
        clientId: 'pre-1',
        clientSecret: 'pre-secret-0123456789',
      });
      await oauth.login(browser());
      expect(as?.registrations).toEqual([]);
      expect(as?.authorizeRequests[0]?.get('client_id')).toBe('pre-1');
      expect(as?.tokenRequests[0]?.auth).toBe(expected);
      // The configured secret stays in mcp.json; the token file never gets a copy.
      expect(JSON.stringify(records.get(mcp?.url ?? ''))).not.toContain('pre-secret');
    },
  );

  it('uses a Client ID Metadata Document when the AS supports it', async () => {
    await setup({ cimd: true });
    const url = 'https://app.example/oauth/clat.json';
    const { oauth } = client({ clientMetadataUrl: url });
    await oauth.login(browser());
    expect(as?.registrations).toEqual([]);
    expect(as?.authorizeRequests[0]?.get('client_id')).toBe(url);
  });

  it('steps up on insufficient_scope: login required headless, fresh authorization when interactive, bounded', async () => {
    await setup();
    const headless = client();
    await headless.oauth.login(browser());
    const raw = peer(headless.oauth);
    const call = { name: 'admin', arguments: {}, ...meta };
    expect(await codeOf(raw.request('tools/call', call))).toMatch(
      /^OAUTH_LOGIN_REQUIRED: .*needs more scope \(mcp:read mcp:admin\): run `clat mcp login remote`/,
    );
    expect(headless.records.get(mcp?.url ?? '')?.scopes).toEqual(['mcp:read', 'mcp:admin']);
    // The next login asks for the union.
    await headless.oauth.login(browser());
    expect(as?.authorizeRequests.at(-1)?.get('scope')).toBe('mcp:read mcp:admin offline_access');
    const answer = await raw.request('tools/call', call);
    expect(JSON.stringify(answer)).toContain('admin done');

    // Interactive: the client re-authorizes by itself, then retries the call once.
    const interactive = client(undefined, { browser: () => browser() });
    await interactive.oauth.login(browser());
    const before = as?.authorizeRequests.length ?? 0;
    const stepped = await peer(interactive.oauth).request('tools/call', call);
    expect(JSON.stringify(stepped)).toContain('admin done');
    expect((as?.authorizeRequests.length ?? 0) - before).toBe(1);
  });

  it('gives up step-up after a bounded number of authorizations when the AS never grants the scope', async () => {
    await setup({ withheld: ['mcp:admin'] });
    const { oauth } = client(undefined, { browser: () => browser() });
    await oauth.login(browser());
    const before = as?.authorizeRequests.length ?? 0;
    const call = { name: 'admin', arguments: {}, ...meta };
    expect(await codeOf(peer(oauth).request('tools/call', call))).toMatch(
      /^HTTP_STATUS: .*HTTP 403/,
    );
    const extra = (as?.authorizeRequests.length ?? 0) - before;
    expect(extra).toBeGreaterThan(0);
    expect(extra).toBeLessThanOrEqual(2);
  });

  it('refreshes before expiry with resource, and returns to login required when refresh is revoked', async () => {
    await setup({ accessTtl: 30 });
    const { oauth, records } = client();
    await oauth.login(browser());
    const first = records.get(mcp?.url ?? '')?.tokens;
    const raw = peer(oauth);
    expect('result' in (await raw.request('server/discover', meta))).toBe(true);
    const refreshes = as?.tokenRequests.filter((r) => r.grant === 'refresh_token') ?? [];
    expect(refreshes.length).toBeGreaterThan(0);
    expect(refreshes[0]).toMatchObject({ resource: mcp?.url, auth: 'none' });
    const second = records.get(mcp?.url ?? '')?.tokens;
    expect(second?.refreshToken).not.toBe(first?.refreshToken);

    as?.revokeRefreshTokens();
    expect(await codeOf(raw.request('server/discover', meta))).toMatch(
      /^OAUTH_LOGIN_REQUIRED: MCP server at http:\/\/127\.0\.0\.1:\d+ needs login \(its stored login was refused at the refresh: invalid_grant, revoked or expired\): run `clat mcp login remote`/,
    );
    expect(oauth.loginRequired).toBe(true);
    expect(oauth.loginLost).toBe(
      'its stored login was refused at the refresh: invalid_grant, revoked or expired',
    );
    expect(records.get(mcp?.url ?? '')?.tokens).toBeUndefined();
  });

  for (const fault of ['reset', '503', 'temporarily_unavailable'] as const) {
    it(`keeps the login when a refresh fails without being refused (${fault}), and refreshes on a later request`, async () => {
      await setup({ accessTtl: 30 });
      const { oauth, records } = client();
      await oauth.login(browser());
      const stored = records.get(mcp?.url ?? '')?.tokens;
      const raw = peer(oauth);
      as?.failRefreshes(fault);
      const code = await codeOf(raw.request('server/discover', meta));
      expect(code).toMatch(
        /^OAUTH_TOKEN: the access token for MCP server at http:\/\/127\.0\.0\.1:\d+ could not be refreshed: .*; the login is kept, and the next request tries again$/,
      );
      expect(oauth.loginRequired).toBe(false);
      expect(records.get(mcp?.url ?? '')?.tokens).toEqual(stored);
      as?.failRefreshes(undefined);
      expect('result' in (await raw.request('server/discover', meta))).toBe(true);
      expect(records.get(mcp?.url ?? '')?.tokens?.refreshToken).not.toBe(stored?.refreshToken);
    });
  }

  it('counts step-ups across calls: a server that never grants the scope gets at most the bound', async () => {
    await setup({ withheld: ['mcp:admin'] });
    const { oauth } = client(undefined, { browser: () => browser() });
    await oauth.login(browser());
    const before = as?.authorizeRequests.length ?? 0;
    const call = { name: 'admin', arguments: {}, ...meta };
    for (let i = 0; i < 3; i++) await codeOf(peer(oauth).request('tools/call', call));
    expect((as?.authorizeRequests.length ?? 0) - before).toBe(2);
    // A login the user asks for starts the count afresh.
    await oauth.login(browser());
    const afterLogin = as?.authorizeRequests.length ?? 0;
    await codeOf(peer(oauth).request('tools/call', call));
    expect((as?.authorizeRequests.length ?? 0) - afterLogin).toBeGreaterThan(0);
  });

  it('listens on the registered redirect port again, so an AS matching redirect URIs exactly accepts the next login', async () => {
    await setup({ exactRedirect: true });
    const { oauth, records } = client();
    const opened: string[] = [];
    await oauth.login(browser(opened));
    const first = records.get(mcp?.url ?? '')?.client;
    expect(first?.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await oauth.login(browser(opened));
    const redirects = opened.map((url) => new URL(url).searchParams.get('redirect_uri'));
    expect(redirects).toEqual([first?.redirectUri, first?.redirectUri]);
    expect(as?.registrations).toHaveLength(1);
    expect(records.get(mcp?.url ?? '')?.client?.clientId).toBe(first?.clientId);
  });

  it('registers anew when the registered redirect port is taken', async () => {
    await setup({ exactRedirect: true });
    const { oauth, records } = client();
    await oauth.login(browser());
    const first = records.get(mcp?.url ?? '')?.client;
    const port = Number(new URL(first?.redirectUri ?? 'http://x').port);
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      await oauth.login(browser());
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
    const second = records.get(mcp?.url ?? '')?.client;
    expect(as?.registrations).toHaveLength(2);
    expect(second?.clientId).not.toBe(first?.clientId);
    expect(second?.redirectUri).not.toBe(first?.redirectUri);
  });

  it('never follows a remote server to a loopback or link-local metadata URL', async () => {
    for (const target of [
      'http://127.0.0.1:6379/evil',
      'https://169.254.169.254/latest/meta-data/',
    ]) {
      const fetched: string[] = [];
      const fake: typeof fetch = async (input) => {
        const url = String(input instanceof Request ? input.url : input);
        fetched.push(url);
        return new Response(null, {
          status: 401,
          headers: { 'www-authenticate': `Bearer resource_metadata="${target}"` },
        });
      };
      const oauth = new OAuthClient({
        serverUrl: 'https://mcp.example.com/mcp',
        store: memoryStore().store,
        fetch: fake,
      });
      expect(await codeOf(oauth.login(browser()))).toMatch(
        /^OAUTH_DISCOVERY: resource_metadata .* of MCP server at https:\/\/mcp\.example\.com is a (loopback|link-local) address/,
      );
      expect(fetched).toEqual(['https://mcp.example.com/mcp']);
    }
  });

  it('refuses a server URL with credentials in it, without quoting them', () => {
    expect(() =>
      client(undefined, { serverUrl: 'https://alice:hunter2-pass@127.0.0.1:9/mcp?k=v' }),
    ).toThrow(/^MCP server URL for https:\/\/127\.0\.0\.1:9 must not embed credentials/);
  });

  it('uses client_credentials without a browser and keeps machine tokens in memory only', async () => {
    await setup();
    as?.clients.set('machine', {
      secret: 'machine-secret-0123456789',
      method: 'client_secret_basic',
    });
    const { oauth, writes } = client({
      grant: 'client_credentials',
      clientId: 'machine',
      clientSecret: 'machine-secret-0123456789',
    });
    const raw = peer(oauth);
    expect('result' in (await raw.request('server/discover', meta))).toBe(true);
    expect(as?.tokenRequests).toEqual([
      {
        grant: 'client_credentials',
        resource: mcp?.url,
        auth: 'client_secret_basic',
        scope: 'mcp:read',
      },
    ]);
    expect(as?.authorizeRequests).toEqual([]);
    expect(writes()).toBe(0);
  });

  it('falls back to the default endpoints for a legacy server without metadata', async () => {
    await setup();
    const origin = mcp?.origin ?? '';
    const metadata = await discoverAuthorizationServer(origin, { fetch }, { origin, legacy: true });
    expect(metadata).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
    });
    expect(
      await codeOf(discoverAuthorizationServer(origin, { fetch }, { origin, legacy: false })),
    ).toMatch(/^OAUTH_DISCOVERY: .*publishes no OAuth or OpenID metadata/);
  });
});

describe('revoking a login (RFC 7009)', () => {
  it('revokes the refresh token, then the access token, as the public client that holds them', async () => {
    await setup({ revocation: 'ok' });
    const { oauth, records } = client();
    await oauth.login(browser());
    const tokens = records.get(mcp?.url ?? '')?.tokens;
    expect(await as?.validate(tokens?.accessToken ?? '', mcp?.url ?? '')).toBeDefined();
    expect(await oauth.revoke()).toEqual({ state: 'revoked', issuer: as?.issuer });
    expect(as?.revocations).toEqual([
      { hint: 'refresh_token', auth: 'none' },
      { hint: 'access_token', auth: 'none' },
    ]);
    expect(await as?.validate(tokens?.accessToken ?? '', mcp?.url ?? '')).toBeUndefined();
    // Revoking deletes nothing: logout does.
    expect(records.size).toBe(1);
    expect(await oauth.logout()).toBe(true);
    expect(await oauth.revoke()).toEqual({ state: 'nothing-stored' });
  });

  it('authenticates a pre-registered confidential client with its configured secret', async () => {
    await setup({ revocation: 'ok', authMethods: ['client_secret_basic'] });
    as?.clients.set('pre-1', { secret: 'pre-secret-0123456789', method: 'client_secret_basic' });
    const { oauth } = client({ clientId: 'pre-1', clientSecret: 'pre-secret-0123456789' });
    await oauth.login(browser());
    expect((await oauth.revoke()).state).toBe('revoked');
    expect(as?.revocations.map((r) => r.auth)).toEqual([
      'client_secret_basic',
      'client_secret_basic',
    ]);
  });

  it('says when the authorization server offers no revocation, or its endpoint fails', async () => {
    await setup();
    const plain = client();
    await plain.oauth.login(browser());
    expect(await plain.oauth.revoke()).toEqual({ state: 'unsupported' });
    expect(as?.revocations).toEqual([]);
    if (as !== undefined) as.behaviour.revocation = '503';
    const down = await plain.oauth.revoke();
    expect(down.state).toBe('failed');
    expect(down.state === 'failed' ? down.reason : '').toMatch(
      /revoking the refresh token at .*HTTP 503/,
    );
  });
});
