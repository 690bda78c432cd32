import type { PluginManifest } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { sensitiveArgKeys, substituteLaunchArgs, substituteLaunchValue } from './launch-vars.js';

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

  it('reads ${env.NAME} from the launch environment, with shell defaults, and names an unset one', () => {
    const vars = {
      data: '/data',
      root: '/root',
      config: undefined,
      manifest: manifest([]),
      env: { TOKEN: 'tok', EMPTY: '' },
    };
    expect(substituteLaunchValue(`Bearer ${v('env.TOKEN')}`, vars)).toBe('Bearer tok');
    expect(substituteLaunchValue(v('env.EMPTY'), vars)).toBe('');
    expect(substituteLaunchValue(v('env.EMPTY:-fallback'), vars)).toBe('fallback');
    expect(substituteLaunchValue(v('env.GONE:-'), vars)).toBe('');
    expect(substituteLaunchArgs([`--key=${v('env.TOKEN')}`], vars)).toEqual(['--key=tok']);
    expect(() => substituteLaunchValue(v('env.GONE'), vars)).toThrow(
      'the environment variable GONE is not set and has no default',
    );
    // Without an environment (a host that gives none) and for other names, as written.
    expect(substituteLaunchValue(v('env.TOKEN'), { ...vars, env: undefined })).toBe(v('env.TOKEN'));
    expect(substituteLaunchValue(v('HOME:-x'), vars)).toBe(v('HOME:-x'));
    expect(substituteLaunchValue(v('config.token:-x'), vars)).toBe(v('config.token:-x'));
  });
});
