/**
 * `clat-plugin.json` manifest v1: the zod schema (strict, unknown fields rejected), its JSON Schema,
 * and a parser that reports one issue per bad field. Filesystem checks (entry canonicalization,
 * digests, exec bits) live in @clat/packaging; this module is runtime-neutral.
 * @module
 */
import * as z from 'zod';
import { type ConfigIssue, formatZodIssues } from './config-issues.js';
import { utf8Length } from './json.js';
import { describeJsonSyntaxError } from './json-syntax-error.js';
import { lazyValue } from './lazy-value.js';

/** The manifest file name at the package root. */
export const MANIFEST_FILE = 'clat-plugin.json';

const KiB = 1024;

/** Bounds of manifest v1 (spec: clat-original section 10). */
export const MANIFEST_LIMITS = {
  manifestBytes: 256 * KiB,
  idChars: 128,
  nameChars: 128,
  versionChars: 64,
  descriptionChars: 4096,
  entryBytes: 4096,
  args: 64,
  argBytes: 4096,
  hostTools: 64,
  prompts: 32,
  promptDescriptionChars: 1024,
  promptSystemBytes: 64 * KiB,
  compatibilityKindChars: 64,
  compatibilityRevisionChars: 256,
  envEntries: 64,
  envValueBytes: 4096,
  userConfigFields: 64,
  userConfigTextChars: 1024,
} as const;

/** Environment variable names a manifest may set. */
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** userConfig keys (also the `${config.KEY}` names). */
export const USER_CONFIG_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** Package and prompt ids: lowercase, digits, `.`, `_`, `-`, at most 128 characters. */
export const PLUGIN_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/;
// No `i` flag: the pattern is also emitted into the JSON Schema, which has no flags.
const SHA256_PATTERN = /^(?:[Ss][Hh][Aa]256:)?[0-9a-fA-F]{64}$/;
const HOST_TOOL_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** Lowercase bare hex of a `sha256:`-prefixed or mixed-case digest. */
export function normalizeSha256(digest: string): string {
  const lower = digest.toLowerCase();
  return lower.startsWith('sha256:') ? lower.slice('sha256:'.length) : lower;
}

/**
 * A digest as a person or a file wrote it (surrounding space, optional `sha256:` prefix, any
 * case) as lowercase bare hex; undefined when it is not 64 hex digits.
 */
export function parseSha256(value: string): string | undefined {
  const trimmed = value.trim();
  return SHA256_PATTERN.test(trimmed) ? normalizeSha256(trimmed) : undefined;
}

/** Why a package-relative path is unsafe, or undefined when it is a plain relative path. */
export function relativePathProblem(path: string): string | undefined {
  if (path.length === 0) return 'must not be empty';
  if (utf8Length(path) > MANIFEST_LIMITS.entryBytes) return 'is too long';
  if (path.includes('\0')) return 'must not contain NUL';
  if (path.includes('\\')) return 'must use "/" separators, not "\\"';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'must be relative to the package';
  for (const part of path.split('/')) {
    if (part === '..') return 'must not contain ".." components';
    if (part === '' || part === '.') return 'must not contain empty or "." components';
  }
  return undefined;
}

const bytesAtMost = (max: number, what: string) =>
  z.string().refine((s) => utf8Length(s) <= max, `${what} must be at most ${max} bytes`);

export const PluginRuntimeKindSchema = lazyValue(() => z.enum(['mcp-stdio', 'wasm-component']));
export type PluginRuntimeKind = z.infer<typeof PluginRuntimeKindSchema>;

export const PluginCapabilitiesSchema = lazyValue(() =>
  z
    .object({
      tools: z.boolean().default(false),
      prompts: z.boolean().default(false),
      sampling: z.boolean().default(false),
      elicitation: z.boolean().default(false),
      hostContext: z.boolean().default(false),
      hostTools: z
        .array(z.string().regex(HOST_TOOL_PATTERN, 'must be a host tool id'))
        .max(MANIFEST_LIMITS.hostTools)
        .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a host tool')
        .default([]),
    })
    .strict(),
);
export type PluginCapabilities = z.infer<typeof PluginCapabilitiesSchema>;

export const PluginPromptSchema = lazyValue(() =>
  z
    .object({
      name: z.string().regex(PLUGIN_ID_PATTERN, 'must match ^[a-z0-9][a-z0-9._-]{0,127}$'),
      description: z.string().max(MANIFEST_LIMITS.promptDescriptionChars).optional(),
      system: bytesAtMost(MANIFEST_LIMITS.promptSystemBytes, 'system').pipe(z.string().min(1)),
    })
    .strict(),
);

export const PluginRuntimeSchema = lazyValue(() =>
  z
    .object({
      kind: PluginRuntimeKindSchema,
      entry: z.string().superRefine((entry, ctx) => {
        const problem = relativePathProblem(entry);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `entry ${problem}` });
      }),
      sha256: z
        .string({
          error: (issue) =>
            issue.input === undefined
              ? 'is missing: the sha256 of the entry file'
              : 'must be a string of 64 hex digits',
        })
        .regex(SHA256_PATTERN, 'must be 64 hex digits, optionally prefixed "sha256:"')
        .transform(normalizeSha256),
      args: z
        .array(bytesAtMost(MANIFEST_LIMITS.argBytes, 'an argument'))
        .max(MANIFEST_LIMITS.args)
        .optional(),
      /** Environment for an mcp-stdio server; values may use `${CLAT_PLUGIN_DATA}` and `${config.KEY}`. */
      env: z
        .record(
          z.string().regex(ENV_NAME_PATTERN, 'must be an environment variable name'),
          bytesAtMost(MANIFEST_LIMITS.envValueBytes, 'an env value'),
        )
        .refine(
          (env) => Object.keys(env).length <= MANIFEST_LIMITS.envEntries,
          `must have at most ${MANIFEST_LIMITS.envEntries} entries`,
        )
        .optional(),
      /** `node`: the entry is a script run with the Node.js that runs CLAT (no exec bit needed). */
      interpreter: z.literal('node').optional(),
    })
    .strict(),
);

/** One user-supplied setting (MCPB `user_config` shape); values land in the plugin config. */
export const PluginUserConfigFieldSchema = lazyValue(() =>
  z
    .object({
      type: z.enum(['string', 'number', 'boolean', 'directory', 'file']),
      title: z.string().min(1).max(MANIFEST_LIMITS.userConfigTextChars),
      description: z.string().max(MANIFEST_LIMITS.userConfigTextChars).optional(),
      required: z.boolean().optional(),
      default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]).optional(),
      multiple: z.boolean().optional(),
      /** Stored 0600 outside the registry and never printed. */
      sensitive: z.boolean().optional(),
      min: z.number().optional(),
      max: z.number().optional(),
    })
    .strict(),
);
export type PluginUserConfigField = z.infer<typeof PluginUserConfigFieldSchema>;

export const PluginManifestSchema = lazyValue(() =>
  z
    .object({
      $schema: z.string().optional(),
      manifestVersion: z.literal(1),
      id: z
        .string()
        .regex(PLUGIN_ID_PATTERN, 'must match ^[a-z0-9][a-z0-9._-]{0,127}$ (lowercase id)'),
      name: z.string().trim().min(1).max(MANIFEST_LIMITS.nameChars),
      version: z.string().min(1).max(MANIFEST_LIMITS.versionChars),
      description: z.string().max(MANIFEST_LIMITS.descriptionChars).optional(),
      runtime: PluginRuntimeSchema,
      capabilities: PluginCapabilitiesSchema.default({
        tools: false,
        prompts: false,
        sampling: false,
        elicitation: false,
        hostContext: false,
        hostTools: [],
      }),
      prompts: z.array(PluginPromptSchema).max(MANIFEST_LIMITS.prompts).optional(),
      configSchema: z.record(z.string(), z.unknown()).optional(),
      userConfig: z
        .record(
          z
            .string()
            .regex(USER_CONFIG_KEY_PATTERN, 'must be a config key (letters, digits, _ and -)'),
          PluginUserConfigFieldSchema,
        )
        .refine(
          (fields) => Object.keys(fields).length <= MANIFEST_LIMITS.userConfigFields,
          `must have at most ${MANIFEST_LIMITS.userConfigFields} fields`,
        )
        .optional(),
      compatibility: z
        .object({
          kind: z.string().min(1).max(MANIFEST_LIMITS.compatibilityKindChars),
          revision: z.string().min(1).max(MANIFEST_LIMITS.compatibilityRevisionChars).optional(),
        })
        .strict()
        .optional(),
    })
    .strict()
    .superRefine((manifest, ctx) => {
      if (manifest.runtime.kind === 'wasm-component') {
        for (const key of ['args', 'env', 'interpreter'] as const) {
          if (manifest.runtime[key] === undefined) continue;
          ctx.addIssue({
            code: 'custom',
            path: ['runtime', key],
            message: `${key} ${key === 'args' ? 'are' : 'is'} only allowed for mcp-stdio packages`,
          });
        }
      }
      const prompts = manifest.prompts ?? [];
      if (prompts.length > 0 && !manifest.capabilities.prompts) {
        ctx.addIssue({
          code: 'custom',
          path: ['prompts'],
          message: 'static prompts require capabilities.prompts = true',
        });
      }
      const seen = new Set<string>();
      prompts.forEach((prompt, index) => {
        if (seen.has(prompt.name)) {
          ctx.addIssue({
            code: 'custom',
            path: ['prompts', index, 'name'],
            message: `duplicate prompt name ${JSON.stringify(prompt.name)}`,
          });
        }
        seen.add(prompt.name);
      });
    }),
);

/** A validated manifest: digest normalized to lowercase hex, capabilities filled in. */
export type PluginManifest = z.infer<typeof PluginManifestSchema>;
/** A manifest as authors write it. */
export type PluginManifestInput = z.input<typeof PluginManifestSchema>;

export type ManifestParseResult =
  | { ok: true; manifest: PluginManifest }
  | { ok: false; issues: ConfigIssue[] };

/**
 * Parses manifest text (or an already-decoded value). `file` names the manifest in every issue.
 * Never throws on bad input.
 */
export function parseManifest(file: string, input: string | unknown): ManifestParseResult {
  let value: unknown = input;
  if (typeof input === 'string') {
    if (utf8Length(input) > MANIFEST_LIMITS.manifestBytes) {
      return {
        ok: false,
        issues: [
          { file, path: '(root)', message: `exceeds ${MANIFEST_LIMITS.manifestBytes} bytes` },
        ],
      };
    }
    try {
      value = JSON.parse(input);
    } catch {
      const message = `not valid JSON: ${describeJsonSyntaxError(input)}`;
      return { ok: false, issues: [{ file, path: '(root)', message }] };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, issues: [{ file, path: '(root)', message: 'must be a JSON object' }] };
  }
  const parsed = PluginManifestSchema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      issues: formatZodIssues(file, '', parsed.error, PluginManifestSchema).map((issue) => ({
        ...issue,
        path: issue.path.replace(/^\./, '') || '(root)',
      })),
    };
  }
  return { ok: true, manifest: parsed.data };
}

/**
 * Capability labels used for consent: `tools`, `prompts`, `sampling`, `elicitation`,
 * `hostContext`, `hostTools.<id>`.
 */
export function capabilityLabels(capabilities: PluginCapabilities): string[] {
  const labels: string[] = [];
  for (const key of ['tools', 'prompts', 'sampling', 'elicitation', 'hostContext'] as const) {
    if (capabilities[key]) labels.push(key);
  }
  for (const id of [...capabilities.hostTools].sort()) labels.push(`hostTools.${id}`);
  return labels;
}

/** The JSON Schema of manifest v1 as authors write it (committed as schemas/clat-plugin-manifest.schema.json). */
export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PluginManifestSchema, { io: 'input', unrepresentable: 'any' });
  return {
    ...schema,
    $id: 'https://clat.dev/schemas/clat-plugin-manifest.schema.json',
    title: 'CLAT plugin manifest v1 (clat-plugin.json)',
  };
}
