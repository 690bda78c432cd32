import { describe, expect, it } from 'vitest';
import type { McpServerConfig } from './config.js';
import { expandServerVariables, literalReferences } from './config-variables.js';

const context = {
  file: '/home/u/.clat/mcp.json',
  env: { TOKEN: 's3cret', EMPTY: '', HOST: 'example.com' },
  projectRoot: '/work/project',
};

const stdio = (fields: Partial<McpServerConfig & { transport: 'stdio' }>): McpServerConfig => ({
  transport: 'stdio',
  name: 'fs',
  origin: 'user',
  command: 'npx',
  ...fields,
});

describe('expandServerVariables', () => {
  it('expands ${VAR}, ${VAR:-default} and ${projectRoot} in args and env', () => {
    const result = expandServerVariables(
      stdio({
        args: ['-y', 'server-filesystem', '${projectRoot}', '${MISSING:-/tmp}', '${EMPTY:-x}'],
        env: { API_KEY: '${TOKEN}', ROOT: '${projectRoot}/src', KEEP: '${EMPTY}' },
      }),
      context,
    );
    expect(result).toEqual({
      server: stdio({
        args: ['-y', 'server-filesystem', '/work/project', '/tmp', 'x'],
        env: { API_KEY: 's3cret', ROOT: '/work/project/src', KEEP: '' },
      }),
    });
  });

  it('expands url and header values of HTTP entries', () => {
    const result = expandServerVariables(
      {
        transport: 'http',
        name: 'docs',
        origin: 'user',
        url: 'https://${HOST}/mcp',
        headers: { Authorization: 'Bearer ${TOKEN}' },
      },
      context,
    );
    expect(result).toMatchObject({
      server: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer s3cret' } },
    });
  });

  it("expands an OAuth client's clientSecret, and names it when its variable is unset", () => {
    const entry = {
      transport: 'http' as const,
      name: 'docs',
      origin: 'user' as const,
      url: 'https://example.com/mcp',
      oauth: { clientId: 'c-1', clientSecret: '${TOKEN}', callbackPort: 8080 },
    };
    expect(expandServerVariables(entry, context)).toMatchObject({
      server: { oauth: { clientId: 'c-1', clientSecret: 's3cret', callbackPort: 8080 } },
    });
    expect(
      expandServerVariables(
        { ...entry, oauth: { clientId: 'c-1', clientSecret: '${NOPE}' } },
        context,
      ),
    ).toEqual({
      issues: [
        expect.objectContaining({
          path: 'docs.oauth.clientSecret',
          message: expect.stringContaining('NOPE is not set'),
        }),
      ],
    });
  });

  it('names the entry and field of an unset variable without default', () => {
    const result = expandServerVariables(stdio({ env: { KEY: '${NOPE}' } }), context);
    expect(result).toEqual({
      issues: [
        {
          file: context.file,
          path: 'fs.env.KEY',
          message:
            'the environment variable NOPE is not set and has no default (write ${NOPE:-value} for one)',
        },
      ],
    });
  });

  it("reads only the environment's own variables, not its prototype's members", () => {
    // `process.env` inherits Object's prototype: `${constructor}` read a function's text.
    const result = expandServerVariables(
      stdio({ args: ['${constructor}'], env: { A: '${toString:-fallback}' } }),
      context,
    );
    expect(result).toEqual({
      issues: [
        {
          file: context.file,
          path: 'fs.args[0]',
          message:
            'the environment variable constructor is not set and has no default (write ${constructor:-value} for one)',
        },
      ],
    });
    expect(
      expandServerVariables(stdio({ env: { A: '${toString:-fallback}' } }), context),
    ).toMatchObject({ server: { env: { A: 'fallback' } } });
  });

  it('allows ${projectRoot} only in args and env', () => {
    const http = expandServerVariables(
      { transport: 'http', name: 'h', origin: 'user', url: 'http://x/${projectRoot}' },
      context,
    );
    expect(http).toMatchObject({
      issues: [
        { path: 'h.url', message: '${projectRoot} is allowed only in "args" and "env" values' },
      ],
    });
    const command = expandServerVariables(stdio({ command: '${projectRoot}/bin/server' }), context);
    expect(command).toMatchObject({ issues: [{ path: 'fs.command' }] });
  });

  it('reports malformed references and a URL that is not http(s) after expansion', () => {
    expect(expandServerVariables(stdio({ args: ['${oops'] }), context)).toMatchObject({
      issues: [{ path: 'fs.args[0]', message: 'unclosed "${" at character 1' }],
    });
    expect(expandServerVariables(stdio({ args: ['${a b}'] }), context)).toMatchObject({
      issues: [{ path: 'fs.args[0]' }],
    });
    expect(
      expandServerVariables(
        { transport: 'http', name: 'h', origin: 'user', url: '${HOST}' },
        context,
      ),
    ).toMatchObject({ issues: [{ path: 'h.url' }] });
  });

  it('checks a URL with references only once expanded, never showing the expanded value', () => {
    const http = (url: string): McpServerConfig => ({
      transport: 'http',
      name: 'h',
      origin: 'user',
      url,
    });
    const env = { ...context.env, WHOLE: 'http://127.0.0.1:4100/mcp', PORT: '4100' };
    expect(expandServerVariables(http('${WHOLE}'), { ...context, env })).toMatchObject({
      server: { url: 'http://127.0.0.1:4100/mcp' },
    });
    expect(
      expandServerVariables(http('http://127.0.0.1:${PORT}/mcp'), { ...context, env }),
    ).toMatchObject({ server: { url: 'http://127.0.0.1:4100/mcp' } });
    expect(
      expandServerVariables(http('${BASE:-https://api.example.com}/mcp'), context),
    ).toMatchObject({ server: { url: 'https://api.example.com/mcp' } });
    expect(expandServerVariables(http('${TOKEN}'), context)).toEqual({
      issues: [
        {
          file: context.file,
          path: 'h.url',
          message: 'its variable references expand to a value that is not an absolute URL',
        },
      ],
    });
    expect(expandServerVariables(http('ftp://${HOST}/x'), context)).toMatchObject({
      issues: [
        { message: 'its variable references expand to a URL that does not use http or https' },
      ],
    });
  });

  it('reads $${ as a literal ${, and gives literalReferences text back as it is', () => {
    const paths = ['/tmp/dol${HOME}lar/s.mjs', '/a$${b', '/x/${', '$$${TOKEN}}'];
    const result = expandServerVariables(
      stdio({
        command: literalReferences('/opt/${x}/node'),
        args: [...paths.map(literalReferences), 'pid $$', '$${TOKEN}=${TOKEN}', '${projectRoot}'],
        env: { DIR: literalReferences('/w/${projectRoot}') },
      }),
      context,
    );
    expect(result).toEqual({
      server: stdio({
        command: '/opt/${x}/node',
        args: [...paths, 'pid $$', '${TOKEN}=s3cret', '/work/project'],
        env: { DIR: '/w/${projectRoot}' },
      }),
    });
  });

  it('returns the same entry when nothing references a variable', () => {
    const server = stdio({ args: ['$HOME', 'a$b'] });
    expect(expandServerVariables(server, context)).toEqual({ server });
  });
});
