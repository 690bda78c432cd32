/**
 * A local npm registry on 127.0.0.1 for network-free tests: serves packuments and tarballs built
 * from directories on disk (the pnpm store of this repo), accepts `npm publish`, and writes an
 * npmrc so the real `npm` client (and anything that shells out to it) talks only to it.
 *
 * ```ts
 * await using registry = await startNpmRegistry();
 * registry.publishClosure(resolveInstalled('@modelcontextprotocol/server-memory'));
 * const env = registry.npmEnv(tempDir); // npm_config_* for child processes
 * ```
 * @module
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTarball, packageEntries, tarballDigests } from './npm-tarball.js';

type PackageJson = Record<string, unknown> & { name: string; version: string };

interface StoredVersion {
  manifest: Record<string, unknown>;
  tarball: Buffer;
  tarballName: string;
}

interface StoredPackage {
  versions: Map<string, StoredVersion>;
  tags: Record<string, string>;
  time: Record<string, string>;
}

export interface PublishedVersion {
  name: string;
  version: string;
  /** `sha512-…` as npm records it in lockfiles and `dist.integrity`. */
  integrity: string;
  tarballUrl: string;
}

export interface PublishOptions {
  /** Fields merged into package.json before packing (e.g. another `version`). */
  packageJson?: Record<string, unknown>;
  /** Dist-tag to point at this version; `latest` unless the version is a prerelease. */
  tag?: string;
  /** Rewrites one file's bytes while packing (package-relative path). */
  transform?: (relative: string, body: Buffer) => Buffer;
}

export interface NpmRegistryFixture extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** Every request path served, in order (to assert what npm asked for). */
  readonly requests: string[];
  /** Packs `dir` (without its node_modules) and publishes it. */
  publishDir(dir: string, options?: PublishOptions): PublishedVersion;
  /**
   * Publishes the package at `dir` and, recursively, every dependency (and non-optional peer) it
   * resolves from its node_modules layout, so `npm install <name>` works offline. Returns the
   * root's version and the number of packages published.
   */
  publishClosure(dir: string): PublishedVersion & { packages: number };
  /** Points a dist-tag at a published version. */
  tag(name: string, tag: string, version: string): void;
  /** Holds each later tarball response of package `name` `ms` before sending it: a slow download. */
  delayTarballs(name: string, ms: number): void;
  /** Removes package `name`: from now on the registry answers 404 for it, as for an unpublished one. */
  unpublish(name: string): void;
  /**
   * Writes `<dir>/npmrc` (registry, a dummy auth token for publish, cache `<dir>/npm-cache`) and
   * returns the environment that makes `npm` use it and nothing else.
   */
  npmEnv(dir: string): Record<string, string>;
  close(): Promise<void>;
}

/** The real directory of a dependency as installed for `fromDir` (default: this test package). */
export function resolveInstalledPackage(
  name: string,
  fromDir = fileURLToPath(new URL('../', import.meta.url)),
): string {
  return realpathSync(join(fromDir, 'node_modules', ...name.split('/')));
}

function isPrerelease(version: string): boolean {
  return /^\d+\.\d+\.\d+-/.test(version);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Starts the registry on 127.0.0.1 with an ephemeral port. */
export async function startNpmRegistry(): Promise<NpmRegistryFixture> {
  const packages = new Map<string, StoredPackage>();
  const requests: string[] = [];
  let url = '';
  const tarballDelays = new Map<string, number>();

  const store = (manifest: PackageJson, tarball: Buffer, tag?: string): PublishedVersion => {
    let pkg = packages.get(manifest.name);
    if (pkg === undefined) {
      pkg = { versions: new Map(), tags: {}, time: {} };
      packages.set(manifest.name, pkg);
    }
    const base = manifest.name.split('/').pop() as string;
    const tarballName = `${base}-${manifest.version}.tgz`;
    const tarballUrl = `${url}${manifest.name}/-/${tarballName}`;
    const { integrity, shasum } = tarballDigests(tarball);
    const full = {
      ...manifest,
      _id: `${manifest.name}@${manifest.version}`,
      dist: { tarball: tarballUrl, integrity, shasum },
    };
    pkg.versions.set(manifest.version, { manifest: full, tarball, tarballName });
    pkg.time[manifest.version] = new Date().toISOString();
    const dist = tag ?? (isPrerelease(manifest.version) ? undefined : 'latest');
    if (dist !== undefined) pkg.tags[dist] = manifest.version;
    return { name: manifest.name, version: manifest.version, integrity, tarballUrl };
  };

  const packument = (name: string, pkg: StoredPackage) => ({
    _id: name,
    name,
    'dist-tags': pkg.tags,
    versions: Object.fromEntries([...pkg.versions].map(([v, stored]) => [v, stored.manifest])),
    time: pkg.time,
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    requests.push(`${req.method} ${path}`);
    const tarballMatch = /^\/(.+)\/-\/([^/]+\.tgz)$/.exec(path);
    if (req.method === 'GET' && tarballMatch !== null) {
      const pkg = packages.get(tarballMatch[1] as string);
      const stored = [...(pkg?.versions.values() ?? [])].find(
        (v) => v.tarballName === tarballMatch[2],
      );
      if (stored === undefined) return send(res, 404, { error: 'not found' });
      // Unref'd: a held response never keeps a finished test process alive.
      const delay = tarballDelays.get(tarballMatch[1] as string) ?? 0;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay).unref());
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(stored.tarball);
      return;
    }
    const name = path.slice(1);
    if (req.method === 'GET') {
      const pkg = packages.get(name);
      if (pkg === undefined) return send(res, 404, { error: 'not found' });
      return send(res, 200, packument(name, pkg));
    }
    if (req.method === 'PUT' && name !== '' && !name.startsWith('-/')) {
      // `npm publish`: one version plus its tarball as a base64 attachment.
      const body = JSON.parse((await readBody(req)).toString('utf8')) as {
        versions: Record<string, PackageJson>;
        'dist-tags'?: Record<string, string>;
        _attachments: Record<string, { data: string }>;
      };
      const [version] = Object.values(body.versions);
      const [attachment] = Object.values(body._attachments);
      if (version === undefined || attachment === undefined) {
        return send(res, 400, { error: 'publish body needs one version and one attachment' });
      }
      if (packages.get(name)?.versions.has(version.version)) {
        return send(res, 403, { error: `cannot publish over ${name}@${version.version}` });
      }
      const { dist: _dist, ...manifest } = version;
      const [tag] = Object.keys(body['dist-tags'] ?? {});
      store(manifest as PackageJson, Buffer.from(attachment.data, 'base64'), tag);
      return send(res, 201, { ok: true });
    }
    // Audit, search and anything else npm might try: not here.
    send(res, 404, { error: 'not found' });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  const publishDir = (dir: string, options: PublishOptions = {}): PublishedVersion => {
    const original = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
    const manifest = { ...original, ...options.packageJson } as PackageJson;
    const entries = packageEntries(dir, (relative, body) => {
      const next = options.transform?.(relative, body) ?? body;
      return relative === 'package.json' && options.packageJson !== undefined
        ? Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)
        : next;
    });
    return store(manifest, createTarball(entries), options.tag);
  };

  const publishClosure = (root: string) => {
    const done = new Set<string>();
    let rootVersion: PublishedVersion | undefined;
    const visit = (dir: string): void => {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson & {
        dependencies?: Record<string, string>;
        optionalDependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        peerDependenciesMeta?: Record<string, { optional?: boolean }>;
      };
      const key = `${pkg.name}@${pkg.version}`;
      if (done.has(key)) return;
      done.add(key);
      const published = publishDir(dir);
      rootVersion ??= published;
      // pnpm links a package's dependencies next to it: <store>/node_modules/<dep>.
      let base = dir;
      for (const _part of pkg.name.split('/')) base = dirname(base);
      const peers = Object.keys(pkg.peerDependencies ?? {}).filter(
        (peer) => pkg.peerDependenciesMeta?.[peer]?.optional !== true,
      );
      const names = [
        ...Object.keys(pkg.dependencies ?? {}),
        ...Object.keys(pkg.optionalDependencies ?? {}),
        ...peers,
      ];
      for (const dep of names) {
        // pnpm: siblings in the virtual store; npm: nested node_modules.
        const real = [join(base, ...dep.split('/')), join(dir, 'node_modules', ...dep.split('/'))]
          .map((candidate) => {
            try {
              return realpathSync(candidate);
            } catch {
              return undefined;
            }
          })
          .find((found) => found !== undefined);
        // Absent: an optional dependency for another platform.
        if (real !== undefined) visit(real);
      }
    };
    visit(realpathSync(root));
    return { ...(rootVersion as PublishedVersion), packages: done.size };
  };

  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });

  return {
    url,
    requests,
    publishDir,
    publishClosure,
    tag(name, tag, version) {
      const pkg = packages.get(name);
      if (pkg?.versions.has(version) !== true)
        throw new Error(`${name}@${version} is not published`);
      pkg.tags[tag] = version;
    },
    delayTarballs(name, ms) {
      tarballDelays.set(name, ms);
    },
    unpublish(name) {
      packages.delete(name);
    },
    npmEnv(dir) {
      mkdirSync(dir, { recursive: true });
      const npmrc = join(dir, 'npmrc');
      const cache = join(dir, 'npm-cache');
      const hostPath = url.replace(/^http:/, '');
      writeFileSync(
        npmrc,
        [
          `registry=${url}`,
          `${hostPath}:_authToken=fixture-token`,
          `cache=${cache}`,
          'audit=false',
          'fund=false',
          'update-notifier=false',
          'prefer-online=true',
          '',
        ].join('\n'),
      );
      return {
        npm_config_userconfig: npmrc,
        npm_config_globalconfig: join(dir, 'npmrc-global'),
        npm_config_registry: url,
        npm_config_cache: cache,
      };
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
