/**
 * Reading componentize-js's report of a failed Wizer snapshot, which buries the exception a
 * guest's top level threw (definePlugin's checks among them) in the wizer command line, a
 * rejection echo and a stack. Author-side only, with build.ts.
 * @module
 */

/** The bundle's file name; StarlingMonkey prefixes the lines of a top-level exception with it. */
export const BUNDLE_FILE = 'guest.js';
const TOP_LEVEL_THREW = 'Exception while evaluating top-level script\n';
/** `guest.js:59:7 `: a place in the bundle, which is deleted after the build. */
const BUNDLE_PLACE = new RegExp(`^${BUNDLE_FILE.replaceAll('.', '\\.')}:\\d+:\\d+ `);

/**
 * What the guest's top level threw, out of componentize-js's report of the failed Wizer snapshot:
 * after the wizer command line and the marker come the exception's lines (each prefixed with its
 * place in the deleted bundle, `guest.js:59:7 `), then the same exception again as an unhandled
 * rejection and a stack. Undefined when the report has another shape (the build failed otherwise).
 */
export function topLevelException(report: string): string | undefined {
  const start = report.indexOf(TOP_LEVEL_THREW);
  if (start < 0) return undefined;
  const rest = report.slice(start + TOP_LEVEL_THREW.length);
  const end = rest.search(/\n(Additionally, some promises were rejected|Stack:)/);
  const thrown = (end < 0 ? rest : rest.slice(0, end))
    .split('\n')
    .map((line) => line.replace(BUNDLE_PLACE, ''))
    .join('\n')
    .trim()
    // A thrown non-Error (a string) is reported as `uncaught exception: <value>`.
    .replace(/^uncaught exception: /, '')
    // Other error names (TypeError, ...) say something; `Error` does not.
    .replace(/^Error: /, '');
  return thrown === '' ? undefined : thrown;
}
