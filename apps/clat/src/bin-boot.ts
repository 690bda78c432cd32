/**
 * The first code `clat` runs (bin/clat.js requires it, built to dist/early/boot.cjs). It spawns
 * the stdio servers of a trusted project when the command will mount them all, then loads the
 * main bundle (dist/bin/main.cjs) through V8's code cache (bin-main-bundle.ts), under the V8 flags
 * of the command (bin-v8-flags.ts). CommonJS and
 * small on purpose: Node loads one CommonJS file synchronously, before its ES-module loader
 * exists, so each server boots while `clat` loads. The set of prestarted servers is handed to
 * main(), which owns it from then on.
 * @module
 */
import type { PrestartedServers } from '@clat/adapter-mcp-stdio/prestart';
import { prestartPlan } from './commands/prestart-plan.js';
import { prestartServers } from './project/prestart.js';

/** @public bin/clat.js names the command and loads the main bundle with them, from dist/early/boot.cjs */
export { dispatchedCommand, loadMainBundle } from './bin-main-bundle.js';
/** @public bin/clat.js sets the command's V8 flags with it, from the built dist/early/boot.cjs */
export { setV8FlagsFor } from './bin-v8-flags.js';

/**
 * Starts what `clat argv` run in `cwd` would mount; undefined when nothing is prestarted.
 * @public bin/clat.js requires it from the built dist/early/boot.cjs
 */
export async function prestartForArgv(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<PrestartedServers | undefined> {
  const plan = prestartPlan(argv);
  return plan === undefined ? undefined : prestartServers({ env, cwd }, plan);
}
