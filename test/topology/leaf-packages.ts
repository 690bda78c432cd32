/**
 * The Node-only leaf packages and who may use them (topology.test.ts checks package.json,
 * imports.test.ts the sources). A leaf is the one home of a concern the packages that need it
 * share, used as a plain dependency; it depends on no workspace package itself, and the kernel
 * (runtime-neutral) uses none.
 */
export const LEAF_USERS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  // Process groups: what spawns.
  ['@clat/process', new Set(['@clat/adapter-mcp-stdio', '@clat/native-tools'])],
  // JSON Schema checks: what takes tool schemas from plugins.
  ['@clat/json-schema', new Set(['@clat/adapter-mcp', '@clat/adapter-wasm'])],
  // Exclusive, atomic, fsynced file writes: what writes files whole.
  [
    '@clat/node-files',
    new Set([
      '@clat/packaging',
      '@clat/adapter-wasm',
      '@clat/adapter-dsh',
      '@clat/adapter-mcp-http',
      '@clat/adapter-mcp-stdio',
      '@clat/native-tools',
    ]),
  ],
]);
