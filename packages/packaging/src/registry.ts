/**
 * `registry.json`: the single active pointer of the plugin store. Parsed strictly; any schema or
 * invariant failure makes the whole plugin runtime fail closed.
 * @module
 */
import {
  capabilityLabels,
  describeJsonSyntaxError,
  type JsonValue,
  PLUGIN_ID_PATTERN,
  PluginCapabilitiesSchema,
  PluginManifestSchema,
} from '@clat/kernel';
import * as z from 'zod';
import { PackagingError } from './errors.js';
import { PACKAGE_LIMITS } from './limits.js';

export const REGISTRY_FILE = 'registry.json';
export const REGISTRY_UNIT = { name: 'clat-plugin-registry', version: 1 } as const;

/**
 * What every registry error ends with. Not "or remove it": a removed registry with packages in the
 * store disables plugins too (store-unlisted.ts), and before that one made the next store command
 * delete every package and secret the registry no longer listed.
 */
export const REGISTRY_ADVICE = 'plugins are disabled until you fix it or restore it from a backup';

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits');
const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ]),
);

export const ActivationSchema = z
  .object({
    artifact: Sha256Schema,
    config: JsonValueSchema.optional(),
    acceptedCapabilities: PluginCapabilitiesSchema,
    /**
     * Names this activation's sensitive settings, `plugin-secrets/<id>.<secrets>.json` (no file:
     * none). Each activation has its own file, written before the registry that points to it, so
     * the registry's one rename switches settings and version together, and a rollback gets its
     * own back. Absent in registries written before it: those read `plugin-secrets/<id>.json`.
     */
    secrets: z
      .string()
      .regex(/^[0-9a-f]{16}$/, 'must be 16 lowercase hex digits')
      .optional(),
  })
  .strict();

/** Where an artifact came from when it was not a local directory or container. */
export const ArtifactSourceSchema = z
  .object({
    kind: z.literal('npm'),
    /** Package name on the registry. */
    name: z.string().min(1).max(214),
    /** The exact version installed. */
    version: z.string().min(1).max(256),
    /** What the user asked for (`latest`, `^1.2.0`, `1.2.3`): updates follow it. */
    range: z.string().min(1).max(256),
    /** `dist.integrity` of the tarball as the registry published it. */
    integrity: z.string().min(1).max(1024),
    /** Registry URL npm resolved it from. */
    registry: z.string().max(2048),
    /** The `bin` entry that runs the server. */
    bin: z.string().min(1).max(214),
    /** Extra environment given with `--env` at install (kept across updates). */
    env: z.record(z.string(), z.string()).optional(),
    /** The server's arguments given after `--` at install (kept across updates). */
    args: z.array(z.string()).optional(),
    allowScripts: z.boolean().optional(),
  })
  .strict();
export type ArtifactSource = z.infer<typeof ArtifactSourceSchema>;

export const ArtifactRecordSchema = z
  .object({
    treeSha256: Sha256Schema,
    manifest: PluginManifestSchema,
    trust: z.enum(['local-unverified', 'publisher-verified']),
    publisher: z.object({ publisher: z.string(), publicKey: z.string() }).strict().optional(),
    source: ArtifactSourceSchema.optional(),
  })
  .strict();

export const PackageRecordSchema = z
  .object({
    enabled: z.boolean(),
    /**
     * `false`: its server is not offered the project root as an MCP root, so a server that narrows
     * itself to its roots (server-filesystem) keeps the directories its arguments name (`clat
     * plugin roots <id> off`). Kept across updates and rollbacks.
     */
    roots: z.literal(false).optional(),
    active: ActivationSchema,
    rollback: ActivationSchema.optional(),
    artifacts: z.record(Sha256Schema, ArtifactRecordSchema),
  })
  .strict();

export const RegistrySchema = z
  .object({
    unit: z.object({ name: z.literal(REGISTRY_UNIT.name), version: z.literal(1) }).strict(),
    packages: z.record(z.string().regex(PLUGIN_ID_PATTERN), PackageRecordSchema),
  })
  .strict();

export type Activation = z.infer<typeof ActivationSchema>;
export type ArtifactRecord = z.infer<typeof ArtifactRecordSchema>;
export type PackageRecord = z.infer<typeof PackageRecordSchema>;
export type Registry = z.infer<typeof RegistrySchema>;

export function emptyRegistry(): Registry {
  return { unit: { ...REGISTRY_UNIT }, packages: Object.create(null) };
}

/**
 * `packages` without a prototype: every lookup is by a name a person typed (`clat plugin update
 * constructor`), and on a plain object `packages.constructor` is Object's, which a command then
 * took for an installed package (and `roots … off` wrote a broken record for).
 */
function ownPackages(registry: Registry): Registry {
  const packages: Registry['packages'] = Object.create(null);
  for (const [id, record] of Object.entries(registry.packages)) packages[id] = record;
  return { unit: registry.unit, packages };
}

/**
 * The artifact of a record's active version. Every registry is read through
 * `registryInvariantProblems`, which refuses one whose activation points to a missing artifact,
 * so this never returns undefined for a read registry.
 */
export function activeArtifact(record: PackageRecord): ArtifactRecord {
  return record.artifacts[record.active.artifact] as ArtifactRecord;
}

function sameLabels(a: Activation['acceptedCapabilities'], b: Activation['acceptedCapabilities']) {
  return capabilityLabels(a).join(',') === capabilityLabels(b).join(',');
}

/** Invariant problems of a schema-valid registry, one line each. */
export function registryInvariantProblems(registry: Registry): string[] {
  const problems: string[] = [];
  for (const [id, record] of Object.entries(registry.packages)) {
    for (const [sha, artifact] of Object.entries(record.artifacts)) {
      if (artifact.treeSha256 !== sha)
        problems.push(`packages.${id}.artifacts.${sha}: key differs from treeSha256`);
      if (artifact.manifest.id !== id)
        problems.push(`packages.${id}.artifacts.${sha}: manifest id is ${artifact.manifest.id}`);
      if ((artifact.trust === 'publisher-verified') !== (artifact.publisher !== undefined)) {
        problems.push(`packages.${id}.artifacts.${sha}: trust and publisher disagree`);
      }
    }
    const activations: [string, Activation | undefined][] = [
      ['active', record.active],
      ['rollback', record.rollback],
    ];
    for (const [slot, activation] of activations) {
      if (activation === undefined) continue;
      const artifact = record.artifacts[activation.artifact];
      if (artifact === undefined) {
        problems.push(
          `packages.${id}.${slot}: points to a missing artifact ${activation.artifact}`,
        );
        continue;
      }
      if (!sameLabels(activation.acceptedCapabilities, artifact.manifest.capabilities)) {
        problems.push(`packages.${id}.${slot}: acceptedCapabilities differ from the manifest`);
      }
      if (
        activation.config !== undefined &&
        Buffer.byteLength(JSON.stringify(activation.config)) > PACKAGE_LIMITS.configBytes
      ) {
        problems.push(`packages.${id}.${slot}.config: exceeds ${PACKAGE_LIMITS.configBytes} bytes`);
      }
    }
  }
  return problems;
}

/** Parses registry text; throws REGISTRY_INVALID naming the file and the first problems. */
export function parseRegistry(file: string, text: string): Registry {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new PackagingError(
      'REGISTRY_INVALID',
      `${file} is not valid JSON (${describeJsonSyntaxError(text)}); ${REGISTRY_ADVICE}`,
      { file },
    );
  }
  const unit = (raw as { unit?: { name?: unknown; version?: unknown } } | null)?.unit;
  if (
    unit?.name === REGISTRY_UNIT.name &&
    typeof unit.version === 'number' &&
    unit.version > REGISTRY_UNIT.version
  ) {
    // Not "malformed": it is fine, for the CLAT that wrote it; editing it would break that one.
    throw new PackagingError(
      'REGISTRY_INVALID',
      `${file} was written by a newer CLAT (registry version ${unit.version}, this CLAT reads version ${REGISTRY_UNIT.version}); upgrade CLAT to use its plugins`,
      { file },
    );
  }
  const parsed = RegistrySchema.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new PackagingError(
      'REGISTRY_INVALID',
      `${file} is malformed (${detail}); ${REGISTRY_ADVICE}`,
      { file },
    );
  }
  const problems = registryInvariantProblems(parsed.data);
  if (problems.length > 0) {
    throw new PackagingError(
      'REGISTRY_INVALID',
      `${file} breaks an invariant (${problems.slice(0, 3).join('; ')}); ${REGISTRY_ADVICE}`,
      { file },
    );
  }
  return ownPackages(parsed.data);
}
