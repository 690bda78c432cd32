import { describe, expect, it } from 'vitest';
import type { ArtifactRecord } from './registry.js';
import { reinstallHint } from './verify-artifact.js';

const artifact = (source?: Partial<NonNullable<ArtifactRecord['source']>>) =>
  ({
    manifest: { version: '1.2.3' },
    ...(source === undefined
      ? {}
      : {
          source: {
            kind: 'npm',
            name: '@acme/mcp',
            version: '1.2.3',
            range: '^1',
            integrity: 'sha512-x',
            registry: 'http://127.0.0.1/',
            bin: 'acme-mcp',
            ...source,
          },
        }),
  }) as unknown as ArtifactRecord;

describe('reinstallHint', () => {
  it('names the package to install again for a local one', () => {
    expect(reinstallHint('notes', artifact())).toBe(
      'reinstall the same version (notes 1.2.3) with "clat plugin install <its package>"',
    );
  });

  it('repeats an npm package’s id, bin and scripts choice, and names its env without values', () => {
    expect(reinstallHint('acme', artifact({}))).toBe(
      `reinstall the same version (acme 1.2.3) with "clat plugin install npm:@acme/mcp@1.2.3 --yes --id acme --bin acme-mcp"`,
    );
    expect(
      reinstallHint(
        'acme-2',
        artifact({ allowScripts: true, env: { ACME_TOKEN: 'sk-secret-0123' }, args: ['--x'] }),
      ),
    ).toBe(
      `reinstall the same version (acme-2 1.2.3) with "clat plugin install npm:@acme/mcp@1.2.3 --yes --id acme-2 --bin acme-mcp --allow-scripts", giving again --env ACME_TOKEN=… and its server arguments after -- as first given`,
    );
  });
});
