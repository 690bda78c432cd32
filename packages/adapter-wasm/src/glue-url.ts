/**
 * The verified jco glue as a guest worker imports it: a `data:` URL of its bytes (imported from
 * memory, since the cache file may change after verification), with jco's debug logger made a
 * no-op. That logger prints only when `process.env.JCO_DEBUG` is set, which in a guest worker it
 * never is (the worker has no environment and a frozen empty `process.env`), yet the glue calls
 * it about 170 times per tool call, building an argument array and often an object literal each
 * time: an empty function lets V8 drop all of that (about 13% of a small call's time in the
 * guest, measured on Node 20). Only this exact, fixed text is replaced with fixed text; glue from
 * a jco that words it differently is used as it is.
 * @module
 */

const DEBUG_LOG =
  /const _debugLog = \(\.\.\.args\) => \{\s*if \(!globalThis\?\.process\?\.env\?\.JCO_DEBUG\) \{ return; \}\s*console\.debug\(\.\.\.args\);\s*\};/;

/** `glueSource` with its never-enabled debug logger replaced by an empty function. */
export function withoutDebugLog(glueSource: string): string {
  return glueSource.replace(DEBUG_LOG, 'const _debugLog = () => {};');
}

/** The `data:` URL a guest worker imports the glue from. */
export function glueModuleUrl(glueSource: string): string {
  return `data:text/javascript;base64,${Buffer.from(withoutDebugLog(glueSource)).toString('base64')}`;
}
