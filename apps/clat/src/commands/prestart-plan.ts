/**
 * Which `clat` runs prestart their project's stdio servers, decided from argv alone: a command
 * that mounts the whole project, run with nothing but project flags. The bin's small boot
 * bundle (bin-boot.ts) reads this before the main bundle loads, so it imports nothing but
 * node:util and the project flags.
 * @module
 */
import { parseArgs } from 'node:util';
import type { PrestartOptions } from '../project/prestart.js';
import { JSON_OPTION, PROJECT_OPTIONS } from '../project-options.js';

/** The project flags when `argv` holds nothing else (no name, no other flag), else undefined. */
function wholeProject(argv: string[]): PrestartOptions | undefined {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      // What `clat tools` takes besides a name or --server.
      options: { ...PROJECT_OPTIONS, ...JSON_OPTION },
      allowPositionals: true,
      strict: true,
    });
    return positionals.length > 0 ? undefined : { project: values.project, trust: values.trust };
  } catch {
    return undefined; // the command reports its usage error
  }
}

/** Commands that mount every configured server when run with project flags only. */
const PLANS: Readonly<Record<string, (rest: string[]) => PrestartOptions | undefined>> = {
  tools: wholeProject,
};

/**
 * The prestart of `argv` (`clat`'s arguments): the project flags when its command mounts the
 * whole project; undefined for every other run, help included (the command then starts what
 * it selects itself).
 */
export function prestartPlan(argv: readonly string[]): PrestartOptions | undefined {
  const [first, ...rest] = argv;
  if (first === undefined || !Object.hasOwn(PLANS, first)) return undefined;
  if (rest.includes('--help') || rest.includes('-h')) return undefined;
  return (PLANS[first] as (rest: string[]) => PrestartOptions | undefined)(rest);
}
