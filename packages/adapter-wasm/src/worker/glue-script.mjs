// The verified jco glue as a guest worker (guest-worker.mjs) runs it, and as the host's code cache
// (glue-code-cache.ts) is made of: every change the host makes to the glue's text is here, under
// one version.
//
// jco's debug logger becomes an empty function. It prints only when `process.env.JCO_DEBUG` is
// set, which in a guest worker it never is (the worker has no environment and a frozen empty
// `process.env`), yet the glue calls it about 170 times per tool call, building an argument array
// and often an object literal each time: an empty function lets V8 drop all of that (about 13% of
// a small call's time in the guest, measured on Node 20). Only this exact, fixed text is replaced
// with fixed text; glue from a jco that words it differently is used as it is.
//
// The glue then runs as a classic script. Node 20 offers V8's code cache for `vm.Script`, not for
// ES modules, and parsing and compiling the 420 KB glue was about 30 ms of each fresh worker's
// start. Only glue of the shape the pinned jco writes is turned into a script (one exported
// `instantiate`, an exported `_util`, no imports, no `import.meta` but one known default); the
// worker imports any other glue as an ES module, as it would a script V8 refuses to compile.

/**
 * Bumped whenever withoutDebugLog or glueScript changes what it makes of a glue: a code cache
 * names the version it was made for, so an older one is never offered for another script (V8
 * itself compares only the source's length).
 */
export const GLUE_SCRIPT_VERSION = 'clat-glue-script/1';

const DEBUG_LOG =
  /const _debugLog = \(\.\.\.args\) => \{\s*if \(!globalThis\?\.process\?\.env\?\.JCO_DEBUG\) \{ return; \}\s*console\.debug\(\.\.\.args\);\s*\};/;

/** `glueSource` with its never-enabled debug logger replaced by an empty function. */
export function withoutDebugLog(glueSource) {
  return glueSource.replace(DEBUG_LOG, 'const _debugLog = () => {};');
}

/**
 * The glue's one use of `import.meta`: a default for a `getCoreModule` argument that the guest
 * worker always passes. In the script it throws instead.
 */
const CORE_MODULE_DEFAULT =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the glue's own text, matched literally
  'if (!getCoreModule) getCoreModule = (name) => fetchCompile(new URL(`./${name}`, import.meta.url));';
const CORE_MODULE_REQUIRED =
  "if (!getCoreModule) throw new TypeError('the guest worker passes getCoreModule');";
const INSTANTIATE_EXPORT = '\nexport function instantiate(';
const UTIL_EXPORT = '\nexport const _util = ';
/** Module syntax left after the rewrite: the glue is then not of the pinned jco's shape. */
const MODULE_SYNTAX = /^[ \t]*(?:import|export)\b|\bimport\s*[.(]/m;

/** Where `from` occurs in `text`; -1 unless it occurs exactly once. */
function onlyIndex(text, from) {
  const at = text.indexOf(from);
  return at >= 0 && text.indexOf(from, at + 1) < 0 ? at : -1;
}

/** The rewrites glueScript makes where their text occurs once: `[from, to, required]`. */
const REWRITES = [
  [INSTANTIATE_EXPORT, '\nfunction instantiate(', true],
  [UTIL_EXPORT, '\nconst _util = ', false],
  [CORE_MODULE_DEFAULT, CORE_MODULE_REQUIRED, false],
];
const SCRIPT_HEAD = "(function () {\n'use strict';\n";
const SCRIPT_TAIL = '\nreturn instantiate;\n})';

/**
 * The glue as a classic script whose value is a function returning its `instantiate`: strict, as
 * a module is, with its top-level names in a function scope of their own. Undefined when the
 * glue is not of the pinned jco's shape. (String searches: a fresh worker runs this once, where
 * the equivalent regular expressions cost a few ms. Every search runs on the glue as verified
 * and the script is joined once at the end: replacing one text at a time left a concatenated
 * string that each following search flattened again, 12.7-14.6 ms of a worker start for the
 * 420 KB glue on the 2-core bench VM, against 7.5-8 ms now, mostly the one join.)
 */
export function glueScript(glueSource) {
  const edits = [];
  for (const [from, to, required] of REWRITES) {
    const at = onlyIndex(glueSource, from);
    if (at >= 0) edits.push({ at, end: at + from.length, to });
    else if (required) return undefined;
  }
  edits.sort((a, b) => a.at - b.at);
  const parts = [SCRIPT_HEAD];
  let next = 0;
  for (const { at, end, to } of edits) {
    // The texts cannot overlap in the pinned jco's glue; any other glue is imported as it is.
    if (at < next) return undefined;
    parts.push(glueSource.slice(next, at), to);
    next = end;
  }
  parts.push(glueSource.slice(next), SCRIPT_TAIL);
  const script = parts.join('');
  return MODULE_SYNTAX.test(script) ? undefined : script;
}

/** Lines the script adds before the glue's first line (for stack traces: `lineOffset`). */
export const GLUE_SCRIPT_HEAD_LINES = 2;
