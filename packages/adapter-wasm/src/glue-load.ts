/**
 * The verified jco glue as the host hands it to a guest worker, from memory (the cache file may
 * change after verification), with jco's debug logger made a no-op. The worker runs it as a
 * classic script with V8's code cache when it can (worker/glue-script.mjs,
 * glue-code-cache.ts), else imports it as an ES module.
 *
 * The logger prints only when `process.env.JCO_DEBUG` is set, which in a guest worker it never is
 * (the worker has no environment and a frozen empty `process.env`), yet the glue calls it about
 * 170 times per tool call, building an argument array and often an object literal each time: an
 * empty function lets V8 drop all of that (about 13% of a small call's time in the guest,
 * measured on Node 20). Only this exact, fixed text is replaced with fixed text; glue from a jco
 * that words it differently is used as it is.
 * @module
 */

const DEBUG_LOG =
  /const _debugLog = \(\.\.\.args\) => \{\s*if \(!globalThis\?\.process\?\.env\?\.JCO_DEBUG\) \{ return; \}\s*console\.debug\(\.\.\.args\);\s*\};/;

/** `glueSource` with its never-enabled debug logger replaced by an empty function. */
export function withoutDebugLog(glueSource: string): string {
  return glueSource.replace(DEBUG_LOG, 'const _debugLog = () => {};');
}

/** What a guest worker is given to load the glue. */
export interface GuestGlue {
  /** The tuned glue source. */
  source: string;
  /** A verified V8 code cache of the glue's script (worker/glue-script.mjs), if there is one. */
  codeCache?: Uint8Array | undefined;
}

/** The glue as a component's guest workers get it. */
export function guestGlueOf(component: {
  glueSource: string;
  glueCodeCache?: Uint8Array | undefined;
}): GuestGlue {
  return { source: withoutDebugLog(component.glueSource), codeCache: component.glueCodeCache };
}
