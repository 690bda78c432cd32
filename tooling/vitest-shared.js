// Workspace packages resolve to their TypeScript sources under vitest, so unit tests
// never need a build. Built output is exercised by test/ (e2e) through real processes.
const conditions = ['@clat/source', 'module', 'node', 'import', 'default'];

export const sourceConditions = {
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@clat/source'] } },
};
