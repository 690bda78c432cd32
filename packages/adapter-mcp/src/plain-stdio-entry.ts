/**
 * A structural check of one mcp.json entry that needs neither zod nor the kernel: it accepts
 * only a stdio entry that `StdioServerConfigSchema` takes *unchanged* (nothing to trim, no
 * unknown key) and returns what the schema would, field for field and in the schema's order.
 * `parseServerEntry` answers such entries without building the schema (its first use costs more
 * than a whole `clat tools` listing), and a CLI may read it before loading anything else
 * (`@clat/adapter-mcp/plain-stdio-entry`). It refuses whatever it is unsure of, and the schema
 * decides those; plain-stdio-entry.test.ts holds it to the schema.
 * @module
 */

/** A stdio entry as {@link plainStdioEntry} returns it (the schema's output type). */
export interface PlainStdioEntry {
  type?: 'stdio';
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  disabled?: boolean;
  includeTools?: string[];
  excludeTools?: string[];
  roots?: boolean;
}

/** The schema's keys in its order (the order of its output). */
const STDIO_KEYS = [
  'type',
  'command',
  'args',
  'env',
  'cwd',
  'disabled',
  'includeTools',
  'excludeTools',
  'roots',
] as const;
const KNOWN = new Set<string>(STDIO_KEYS);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Tool patterns as the schema keeps them: at most 512, each non-empty and already trimmed. */
function isPatternList(value: unknown): boolean {
  return (
    isStringArray(value) &&
    value.length <= 512 &&
    value.every((pattern) => pattern !== '' && pattern.trim() === pattern)
  );
}

function fieldOk(key: (typeof STDIO_KEYS)[number], value: unknown): boolean {
  switch (key) {
    case 'type':
      return value === 'stdio';
    case 'command':
      return typeof value === 'string' && value !== '' && value.trim() === value;
    case 'args':
      return isStringArray(value);
    case 'env':
      // An own "__proto__" key (JSON.parse makes one) is dropped by the schema: not plain.
      return (
        isRecord(value) &&
        Object.getPrototypeOf(value) === Object.prototype &&
        !Object.hasOwn(value, '__proto__') &&
        Object.values(value).every((item) => typeof item === 'string')
      );
    case 'cwd':
      return typeof value === 'string' && value !== '';
    case 'disabled':
    case 'roots':
      return typeof value === 'boolean';
    case 'includeTools':
    case 'excludeTools':
      return isPatternList(value);
  }
}

/**
 * What `StdioServerConfigSchema` returns for `raw` when `raw` is a plain stdio entry it takes
 * unchanged, else undefined (the schema then decides, and names any problem).
 */
export function plainStdioEntry(raw: unknown): PlainStdioEntry | undefined {
  if (!isRecord(raw) || Object.getPrototypeOf(raw) !== Object.prototype) return undefined;
  for (const key of Object.keys(raw)) if (!KNOWN.has(key)) return undefined;
  if (!('command' in raw)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of STDIO_KEYS) {
    if (!Object.hasOwn(raw, key)) continue;
    const value = raw[key];
    // The schema's optional fields take an explicit undefined; JSON never holds one.
    if (value === undefined || !fieldOk(key, value)) return undefined;
    out[key] =
      key === 'args' || key === 'includeTools' || key === 'excludeTools'
        ? [...(value as string[])]
        : key === 'env'
          ? { ...(value as Record<string, string>) }
          : value;
  }
  return out as unknown as PlainStdioEntry;
}
