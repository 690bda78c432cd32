import { MANIFEST_LIMITS } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import {
  environmentNames,
  environmentReferences,
  npmPackageId,
  parseNpmSpec,
  requiredEnvironment,
  stageNpmPackage,
} from './npm-source.js';

describe('npmPackageId', () => {
  it('is the unscoped name, lowercased, for a name that says which server it is', () => {
    expect(npmPackageId('@modelcontextprotocol/server-memory')).toBe('server-memory');
    expect(npmPackageId('@upstash/context7-mcp')).toBe('context7-mcp');
    expect(npmPackageId('@supabase/mcp-server-supabase')).toBe('mcp-server-supabase');
    expect(npmPackageId('mcp-server')).toBe('mcp-server');
  });

  it('keeps the scope in front of an unscoped part that only says "MCP server"', () => {
    expect(npmPackageId('@playwright/mcp')).toBe('playwright-mcp');
    expect(npmPackageId('@sentry/mcp-server')).toBe('sentry-mcp-server');
    expect(npmPackageId('@acme/MCP.Server')).toBe('acme-mcp.server');
    expect(npmPackageId('@z_ai/mcp-server')).toBe('z_ai-mcp-server');
    // A character an id cannot hold becomes '-'.
    expect(npmPackageId('@acme~tools/servers')).toBe('acme-tools-servers');
  });

  it('falls back to a hash of the name when no id pattern fits', () => {
    expect(npmPackageId(`@acme/${'x'.repeat(200)}`)).toMatch(/^npm-[0-9a-f]{12}$/);
  });
});

describe('environmentReferences', () => {
  const v = (name: string) => `\u0024{${name}}`;

  it('makes a typed ${NAME} an environment reference and keeps the store variables', () => {
    expect(environmentReferences(v('NOTION_TOKEN'))).toBe(v('env.NOTION_TOKEN'));
    expect(environmentReferences(`Bearer ${v('T:-none')} ${v('U')}`)).toBe(
      `Bearer ${v('env.T:-none')} ${v('env.U')}`,
    );
    expect(environmentReferences(`${v('CLAT_PLUGIN_DATA')}/db ${v('config.key')}`)).toBe(
      `${v('CLAT_PLUGIN_DATA')}/db ${v('config.key')}`,
    );
    expect(environmentReferences('plain $HOME value')).toBe('plain $HOME value');
  });

  it('names the variables a value needs: those without a default, not the store variables', () => {
    expect(
      requiredEnvironment(
        `${v('A')} ${v('B:-x')} ${v('CLAT_PLUGIN_DATA')} ${v('config.k')} ${v('C')}`,
      ),
    ).toEqual(['A', 'C']);
    expect(requiredEnvironment('plain')).toEqual([]);
    expect(
      environmentNames(`--token=${v('A')} ${v('B:-x')} ${v('CLAT_PLUGIN_ROOT')} ${v('config.k')}`),
    ).toEqual(['A', 'B']);
    expect(environmentNames('plain $HOME')).toEqual([]);
  });
});

describe('parseNpmSpec', () => {
  it('splits a scoped or plain name from its version, range or tag', () => {
    expect(parseNpmSpec('npm:@playwright/mcp')).toEqual({
      name: '@playwright/mcp',
      range: 'latest',
    });
    expect(parseNpmSpec('npm:@playwright/mcp@^0.0.80')).toEqual({
      name: '@playwright/mcp',
      range: '^0.0.80',
    });
    expect(parseNpmSpec('npm:left-pad@next')).toEqual({ name: 'left-pad', range: 'next' });
  });

  it('refuses a name npm would refuse and an empty version, quoting the spec', () => {
    expect(() => parseNpmSpec('npm:Not A Name')).toThrow(
      '"npm:Not A Name" is not an npm package spec (npm:<name>[@<version|range|tag>])',
    );
    expect(() => parseNpmSpec('npm:left-pad@')).toThrow(
      '"npm:left-pad@" has an empty or invalid version',
    );
  });
});

describe('stageNpmPackage server arguments', () => {
  // A missing npm executable proves the check runs before npm does.
  const options = { spec: { name: 'left-pad', range: 'latest' }, npm: '/nonexistent/npm' };

  it('refuses more arguments than a manifest may hold, before npm runs', async () => {
    const args = Array.from({ length: MANIFEST_LIMITS.args + 1 }, (_, index) => `a${index}`);
    await expect(stageNpmPackage({ ...options, args })).rejects.toThrow(
      `${MANIFEST_LIMITS.args + 1} server arguments are more than the ${MANIFEST_LIMITS.args} a package may have`,
    );
  });

  it('refuses an argument over the byte limit, naming its position', async () => {
    const args = ['--ok', 'é'.repeat(MANIFEST_LIMITS.argBytes / 2 + 1)];
    await expect(stageNpmPackage({ ...options, args })).rejects.toThrow(
      `server argument 2 is longer than ${MANIFEST_LIMITS.argBytes} bytes`,
    );
  });
});
