import type { PluginManifest } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { sensitiveArgKeys, substituteLaunchArgs } from './launch-vars.js';

/** A launch variable as a manifest writes it (not a template string). */
const v = (name: string) => `\u0024{${name}}`;

function manifest(args: string[]): PluginManifest {
  return {
    manifestVersion: 1,
    id: 'demo',
    name: 'Demo',
    version: '1.0.0',
    runtime: { kind: 'mcp-stdio', entry: 'server.mjs', sha256: '0'.repeat(64), args },
    capabilities: {
      tools: true,
      prompts: false,
      sampling: false,
      elicitation: false,
      hostContext: false,
      hostTools: [],
    },
    userConfig: {
      token: { type: 'string', title: 'Token', sensitive: true },
      dirs: { type: 'directory', title: 'Dirs', multiple: true },
    },
  } as PluginManifest;
}

describe('launch variables', () => {
  it('expands a list setting into several arguments and the rest in place', () => {
    const vars = {
      data: '/data',
      root: '/root',
      config: { token: 's3cret', dirs: ['/a', '/b'] },
      manifest: manifest([]),
    };
    expect(
      substituteLaunchArgs([v('config.dirs'), `--data=${v('CLAT_PLUGIN_DATA')}`, v('HOME')], vars),
    ).toEqual(['/a', '/b', '--data=/data', v('HOME')]);
  });

  it('names the sensitive settings passed on the command line, once each', () => {
    expect(
      sensitiveArgKeys(
        manifest([`--token=${v('config.token')}`, v('config.token'), v('config.dirs')]),
      ),
    ).toEqual(['token']);
    expect(sensitiveArgKeys(manifest([v('config.dirs'), '--verbose']))).toEqual([]);
  });
});
