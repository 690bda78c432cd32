import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pkg = require('../package.json') as { version: string };

/** The CLI version, read from package.json so it never drifts from the release. */
export const CLAT_VERSION: string = pkg.version;
