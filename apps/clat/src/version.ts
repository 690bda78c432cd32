import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// By the package's own name (its exports list ./package.json): the library build (dist/) and
// the bundled binary (dist/bin/) sit at different depths.
const pkg = require('@clat/cli/package.json') as { version: string };

/** The CLI version, read from package.json so it never drifts from the release. */
export const CLAT_VERSION: string = pkg.version;
