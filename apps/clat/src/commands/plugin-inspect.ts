/**
 * `clat plugin inspect`: what a package asks for, read without installing it, from any source
 * install takes or from an installed id (its active version).
 * @module
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sanitizeTerminalLine } from '@clat/kernel';
import {
  type InspectedPackage,
  inspectPackage,
  isMcpbSource,
  type McpbInfo,
  NPM_SPEC_PREFIX,
  type PluginStore,
  parseNpmSpec,
  stageMcpbBundle,
  stageNpmPackage,
  trustLabel,
  unpackContainer,
} from '@clat/packaging';
import type { CommandIO } from '../command.js';
import { isComponentFile, packageFromComponent } from './plugin-component.js';
import { notAPathHint, usage } from './plugin-install.js';
import { packageDirOf } from './plugin-project.js';

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
}

/**
 * Inspects a directory, a `.clatpkg`, an `npm:` spec or an MCPB bundle (staged in a temporary
 * directory, then removed).
 */
export async function inspectSource(
  store: PluginStore,
  source: string,
  io: CommandIO,
  bin: string | undefined,
  retyped: (source: string) => string,
): Promise<{ inspected: InspectedPackage; mcpb?: McpbInfo; installed?: string }> {
  if (source.startsWith(NPM_SPEC_PREFIX)) {
    const staged = await stageNpmPackage({
      spec: parseNpmSpec(source),
      ...(bin === undefined ? {} : { bin }),
      processEnv: io.env,
    });
    try {
      return { inspected: { ...(await inspectPackage(staged.dir)), dir: source } };
    } finally {
      await staged.cleanup();
    }
  }
  const given = resolve(io.cwd, source);
  if ((await stat(given).catch(() => undefined)) === undefined) {
    // `clat plugin inspect <id>` of an installed package (no such path here): its active version.
    const installed = await installedArtifactDir(store, source);
    if (installed !== undefined) {
      return { inspected: { ...(await inspectPackage(installed)), dir: installed }, installed };
    }
    const instead = notAPathHint(source, retyped);
    if (instead !== undefined) {
      throw usage(`${JSON.stringify(source)} is no file or directory in ${io.cwd}; ${instead}`);
    }
  }
  // A plugin project is inspected as its built package, as install does (never node_modules).
  const path = await packageDirOf(given);
  if (isComponentFile(path)) {
    // A bare component: the package install would generate for it (manifest, capabilities).
    const staged = await packageFromComponent(path, {});
    try {
      return { inspected: { ...(await inspectPackage(staged.dir)), dir: path } };
    } finally {
      await staged.cleanup();
    }
  }
  if (await isMcpbSource(path)) {
    const staged = await stageMcpbBundle(path);
    try {
      return {
        inspected: { ...(await inspectPackage(staged.dir)), dir: path },
        mcpb: staged.info,
      };
    } finally {
      await staged.cleanup();
    }
  }
  return { inspected: await inspectPackageOrContainer(path) };
}

/** The directory of installed package `id`'s active version; undefined when none is installed. */
async function installedArtifactDir(store: PluginStore, id: string): Promise<string | undefined> {
  // The registry's packages have no prototype: an id such as `constructor` finds nothing.
  const record = (await store.readRegistry()).packages[id];
  return record === undefined ? undefined : store.artifactDir(id, record.active.artifact);
}

/** Inspects a directory or a `.clatpkg` (unpacked into a temporary directory, then removed). */
async function inspectPackageOrContainer(source: string): Promise<InspectedPackage> {
  if (!(await isFile(source))) return inspectPackage(source);
  const temp = await mkdtemp(join(tmpdir(), 'clat-inspect-'));
  try {
    const dir = join(temp, 'package');
    await unpackContainer(source, dir);
    const inspected = await inspectPackage(dir);
    return { ...inspected, dir: source };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** MCPB declarations and settings under the inspect screen (author-written, sanitised). */
export function formatBundleExtras(
  inspected: InspectedPackage,
  mcpb: McpbInfo | undefined,
): string {
  const lines: string[] = [];
  const settings = describeSettings(inspected);
  if (settings.length > 0)
    lines.push(`  settings      ${settings.map(sanitizeTerminalLine).join(', ')}`);
  if (mcpb !== undefined) {
    const names = (list: { name: string }[]) =>
      list.length === 0 ? 'none' : list.map((item) => sanitizeTerminalLine(item.name)).join(', ');
    lines.push(
      `MCP Bundle (manifest ${sanitizeTerminalLine(mcpb.manifestVersion)}, server ${mcpb.serverType}, ${mcpb.signed ? 'signed; signature not verified' : 'unsigned'}):`,
      `  tools         ${names(mcpb.tools)}${mcpb.toolsGenerated ? ' (more at run time)' : ''}`,
      `  prompts       ${names(mcpb.prompts)}`,
    );
    if (mcpb.compatibility !== undefined) {
      lines.push(`  compatibility ${sanitizeTerminalLine(JSON.stringify(mcpb.compatibility))}`);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function describeSettings(inspected: InspectedPackage): string[] {
  return Object.entries(inspected.manifest.userConfig ?? {}).map(
    ([key, field]) =>
      `${key} (${field.type}${field.required ? ', required' : ''}${field.sensitive ? ', sensitive' : ''})`,
  );
}

export function describeInspected(
  inspected: InspectedPackage,
  mcpb?: McpbInfo,
): Record<string, unknown> {
  const { manifest, tree } = inspected;
  return {
    id: manifest.id,
    name: manifest.name,
    version: manifest.version,
    ...(manifest.description === undefined ? {} : { description: manifest.description }),
    runtime: manifest.runtime.kind,
    entry: manifest.runtime.entry,
    entrySha256: manifest.runtime.sha256,
    treeSha256: tree.treeSha256,
    files: tree.files.length,
    bytes: tree.totalBytes,
    capabilities: inspected.capabilities,
    prompts: (manifest.prompts ?? []).map((prompt) => prompt.name),
    configSchema: manifest.configSchema !== undefined,
    settings: describeSettings(inspected),
    trust: trustLabel(inspected.trust),
    ...(inspected.publisher === undefined ? {} : { publisher: inspected.publisher.publisher }),
    ...(mcpb === undefined
      ? {}
      : {
          mcpb: `manifest ${mcpb.manifestVersion}, server ${mcpb.serverType}, ${mcpb.signed ? 'signed (signature not verified)' : 'unsigned'}`,
          declaredTools: mcpb.tools.map((tool) => tool.name),
          declaredPrompts: mcpb.prompts.map((prompt) => prompt.name),
          ...(mcpb.compatibility === undefined ? {} : { compatibility: mcpb.compatibility }),
        }),
  };
}
