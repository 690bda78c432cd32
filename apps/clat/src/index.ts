/** @clat/cli: the `clat` command as a library, for custom distributions. @module */
export type { Command, CommandIO } from './command.js';
export { COMMANDS } from './commands/index.js';
export { main } from './main.js';
export { CLAT_VERSION } from './version.js';
