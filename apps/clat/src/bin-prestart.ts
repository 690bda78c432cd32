/**
 * The first code `clat` runs (bin/clat.js requires it, built to dist/early/prestart.cjs): spawns
 * the stdio servers of a trusted project when the command will mount them all, then the bin
 * imports the ES-module bundle. CommonJS on purpose: Node 20 loads one CommonJS file
 * synchronously, while the ES-module loader's set-up and the module graph's asynchronous
 * reads would hold the spawn about 10 ms, and each server boots while `clat` loads instead.
 * The set is handed to main(), which owns it from then on.
 * @module
 */
import type { PrestartedServers } from '@clat/adapter-mcp-stdio/prestart';
import { prestartPlan } from './commands/prestart-plan.js';
import { prestartServers } from './project/prestart.js';

/**
 * Starts what `clat argv` run in `cwd` would mount; undefined when nothing is prestarted.
 * @public bin/clat.js requires it from the built dist/early/prestart.cjs
 */
export async function prestartForArgv(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<PrestartedServers | undefined> {
  const plan = prestartPlan(argv);
  return plan === undefined ? undefined : prestartServers({ env, cwd }, plan);
}
