// The verified jco glue as a classic script, for a guest worker (guest-worker.mjs) and the host's
// code cache (glue-code-cache.ts). Node 20 offers V8's code cache for `vm.Script`, not for ES
// modules, and parsing and compiling the 420 KB glue was about 30 ms of each fresh worker's
// start. Only glue of the shape the pinned jco writes is turned into a script (one exported
// `instantiate`, an exported `_util`, no imports, no `import.meta` but one known default); the
// worker imports any other glue as an ES module, as it would a script V8 refuses to compile.

/**
 * Bumped whenever glueScript changes what it makes of a glue: a code cache names the version it
 * was made for, so an older one is never offered for another script.
 */
export const GLUE_SCRIPT_VERSION = 'clat-glue-script/1';

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

/** `text` with the one occurrence of `from` replaced; undefined unless there is exactly one. */
function replaceOnce(text, from, to) {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) return undefined;
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/**
 * The glue as a classic script whose value is a function returning its `instantiate`: strict, as
 * a module is, with its top-level names in a function scope of their own. Undefined when the
 * glue is not of the pinned jco's shape. (String searches: a fresh worker runs this once, where
 * the equivalent regular expressions cost a few ms.)
 */
export function glueScript(glueSource) {
  let body = replaceOnce(glueSource, INSTANTIATE_EXPORT, '\nfunction instantiate(');
  if (body === undefined) return undefined;
  body = replaceOnce(body, UTIL_EXPORT, '\nconst _util = ') ?? body;
  body = replaceOnce(body, CORE_MODULE_DEFAULT, CORE_MODULE_REQUIRED) ?? body;
  if (MODULE_SYNTAX.test(body)) return undefined;
  return `(function () {\n'use strict';\n${body}\nreturn instantiate;\n})`;
}

/** Lines the script adds before the glue's first line (for stack traces: `lineOffset`). */
export const GLUE_SCRIPT_HEAD_LINES = 2;
