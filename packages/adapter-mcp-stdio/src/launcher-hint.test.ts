import { describe, expect, it } from 'vitest';
import {
  type NpxInstall,
  npxInstall,
  npxInstallCommand,
  npxPackages,
  slowStartHint,
} from './launcher-hint.js';

describe('npxPackages', () => {
  it('reads the package an npx command line runs', () => {
    expect(npxPackages('npx', ['-y', '@modelcontextprotocol/server-memory'])).toEqual([
      '@modelcontextprotocol/server-memory',
    ]);
    expect(npxPackages('/usr/bin/npx', ['--yes', '@z_ai/mcp-server@latest', '--stdio'])).toEqual([
      '@z_ai/mcp-server@latest',
    ]);
    expect(npxPackages('npx', ['-y', '--', 'server-x', '-h'])).toEqual(['server-x']);
    // --package names what to install; the positional is then the bin it runs.
    expect(npxPackages('npx', ['-y', '-p', 'a@1', '--package=b', 'a-bin'])).toEqual(['a@1', 'b']);
    expect(npxPackages('npx', ['--cache', '/tmp/c', 'srv'])).toEqual(['srv']);
  });

  it('is undefined for other commands and for npx without a package', () => {
    expect(npxPackages('node', ['server.js'])).toBeUndefined();
    expect(npxPackages('uvx', ['mcp-server-fetch'])).toBeUndefined();
    expect(npxPackages('npx', ['-y'])).toBeUndefined();
    expect(npxPackages('npx', ['-c', 'echo hi'])).toBeUndefined();
  });
});

describe('slowStartHint', () => {
  it('names the package and the npm exec that installs it, quoting what the shell would not keep', () => {
    expect(slowStartHint('npx', ['-y', '@modelcontextprotocol/server-memory'])).toBe(
      'npx may still have been installing @modelcontextprotocol/server-memory (a first start downloads it, and each attempt is stopped at the handshake timeout before npm finishes); install it once with "npm exec --yes --package=@modelcontextprotocol/server-memory -- node -e 0" (it may first wait up to a minute for the lock a stopped attempt left), then start CLAT again',
    );
    expect(slowStartHint('npx', ['-y', 'srv@>=1 <2'])).toContain(
      `"npm exec --yes --package='srv@>=1 <2' -- node -e 0"`,
    );
    expect(slowStartHint('node', ['server.js'])).toBeUndefined();
    // A distribution's own name: the program the person starts again.
    expect(slowStartHint('npx', ['-y', 'srv'], 'acme-agent')).toMatch(
      /then start acme-agent again$/,
    );
  });
});

describe('npxInstall', () => {
  it("keeps the npx line's npm settings and replaces what npx itself decides", () => {
    const install = npxInstall('npx', [
      '--registry=http://127.0.0.1:4873/',
      '--cache',
      '/tmp/c',
      '-y',
      '-p',
      'a@1',
      '--package=b',
      'a-bin',
      '--stdio',
    ]);
    expect(install).toEqual({
      packages: ['a@1', 'b'],
      args: [
        'exec',
        '--registry=http://127.0.0.1:4873/',
        '--cache',
        '/tmp/c',
        '--yes',
        '--package=a@1',
        '--package=b',
        '--',
        'node',
        '-e',
        '0',
      ],
    });
    expect(npxInstallCommand(install as NpxInstall)).toBe(
      'npm exec --registry=http://127.0.0.1:4873/ --cache /tmp/c --yes --package=a@1 --package=b -- node -e 0',
    );
    expect(npxInstall('node', ['server.js'])).toBeUndefined();
  });
});
