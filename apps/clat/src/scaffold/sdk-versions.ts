/**
 * The versions a new plugin project depends on. SDK ranges follow the packages of this release
 * (a test checks them against the workspace); third-party pins are the versions CLAT is tested
 * with.
 * @module
 */
export const SCAFFOLD_VERSIONS = {
  '@clat/kernel': '^0.1.0',
  '@clat/adapter-dsh': '^0.1.0',
  '@clat/wasm-guest-sdk': '^0.1.0',
  '@modelcontextprotocol/server': '2.4.0',
  '@bytecodealliance/preview2-shim': '0.26.0',
  zod: '4.6.7',
  esbuild: '0.27.7',
  typescript: '5.9.3',
  vitest: '4.1.12',
  '@types/node': '20.19.43',
} as const;
