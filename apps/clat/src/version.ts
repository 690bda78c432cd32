/**
 * Replaced by the package.json version when tsup builds (`define` in both tsup configs), so a
 * start does not pay for `node:module`, the CommonJS loader and a package lookup; a run from
 * source (tests) reads package.json instead.
 */
declare const __CLAT_VERSION__: string | undefined;

function packageVersion(): string {
  const { createRequire } = process.getBuiltinModule('node:module');
  // By the package's own name (its exports list ./package.json): the library build (dist/), the
  // bundled binary (dist/bin/) and src/ sit at different depths.
  const pkg = createRequire(import.meta.url)('@clat/cli/package.json') as { version: string };
  return pkg.version;
}

/** The CLI version, from package.json so it never drifts from the release. */
export const CLAT_VERSION: string =
  typeof __CLAT_VERSION__ === 'string' ? __CLAT_VERSION__ : packageVersion();
