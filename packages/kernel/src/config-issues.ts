/**
 * One shape for configuration problems of any file (plugin manifests, plugins.json, provider
 * config, a connector's own config): each names the file and the field, one sentence.
 * @module
 */
import type * as z from 'zod';

export interface ConfigIssue {
  /** The file the issue is in. */
  file: string;
  /** Dotted path, e.g. `memory.args[1]`. */
  path: string;
  message: string;
  /** Fields the file has at `path` that its schema does not know (the message names them too). */
  unknownKeys?: readonly string[];
  /**
   * The fields the schema knows at `path`, when the reader set them: a host can name the one an
   * unknown field was likely meant to be (`"comand"`: did you mean `"command"`?).
   */
  knownKeys?: readonly string[];
}

function issuePath(base: string, path: readonly PropertyKey[]): string {
  let out = base;
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  return out;
}

/** Turns zod issues into one line each, naming the file and field. */
export function formatZodIssues(file: string, base: string, error: z.ZodError): ConfigIssue[] {
  return error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return {
        file,
        path: issuePath(base, issue.path),
        message: `unknown field(s) ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`,
        unknownKeys: issue.keys,
      };
    }
    return { file, path: issuePath(base, issue.path), message: issue.message };
  });
}
