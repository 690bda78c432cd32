import { describe, expect, it } from 'vitest';
import { npmPackageId, parseNpmSpec } from './npm-source.js';

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
