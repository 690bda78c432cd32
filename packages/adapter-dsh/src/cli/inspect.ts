/**
 * `clat-dsh inspect`: which DSH seams a plugin uses, which of them this adapter cannot serve,
 * and what that means for a CLAT package (capabilities). Evidence comes from three places:
 * the static `inject` declaration, the ctx members `apply()` touched (run with a recording ctx,
 * never served), and `ctx.<member>` references in the plugin's own sources (uses inside tool
 * bodies that apply() does not reach).
 * @module
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { PluginCapabilities } from '@clat/kernel';
import { NATIVE_HOST_TOOLS, sanitizeTerminalLine } from '@clat/kernel';
import * as z from 'zod';
import { CORE_MEMBERS, type SeamRecorder, SUPPORTED_SERVICES } from '../dsh-context.js';
import { DshAdapterError, DshErrorCode, describeError } from '../errors.js';
import { normalizePlugin } from '../plugin-loader.js';
import type { ToolHint } from '../seams/tools.js';
import { startServer } from '../serve-clat.js';
import { bundle, type PluginPackage } from './entry.js';

export type PluginStatus = 'portable' | 'host-bridged' | 'unsupported';

export interface InspectReport {
  entry: string;
  kind: string;
  name: string | undefined;
  /** Supported services the plugin uses (any evidence). */
  seams: string[];
  /** Names the adapter cannot serve: required by inject or touched by apply(). */
  unsupported: string[];
  /** `ctx.<name>` references in the sources that the adapter does not serve (may be false positives). */
  unresolved: string[];
  status: PluginStatus;
  applied: boolean;
  /** Why apply() could not run (config missing, a throw…), if it did not. */
  applyError: string | undefined;
  tools: { name: string; hint: ToolHint }[];
  systemPrompt: boolean;
  capabilities: PluginCapabilities;
  /** JSON Schema of the plugin's config (from a zod `Config`), else `{ type: 'object' }`. */
  configSchema: Record<string, unknown>;
}

/** JSON Schema for a zod `Config` (any zod 4 copy); `{ type: 'object' }` for anything else. */
export function configSchemaOf(config: unknown): Record<string, unknown> {
  const fallback = { type: 'object' };
  const candidate = config as { _zod?: unknown } | undefined;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate._zod !== 'object')
    return fallback;
  try {
    const schema = z.toJSONSchema(config as z.ZodType, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    delete schema.$schema;
    return schema.type === 'object' ? schema : fallback;
  } catch {
    return fallback;
  }
}

const HOST_BRIDGED = new Set(['llm', 'userQuestions', 'clat', 'fs', 'shell', 'sessions', 'agents']);
const KNOWN = new Set<string>([...SUPPORTED_SERVICES, ...CORE_MEMBERS]);
const FILE_HOST_TOOLS = NATIVE_HOST_TOOLS.filter((tool) => tool !== 'run_command');

/** `ctx.name`, `ctx?.name` and `ctx['name']` in source text. */
export function scanContextReferences(source: string): string[] {
  const names = new Set<string>();
  const pattern =
    /\bctx\s*\??\.\s*([A-Za-z_$][\w$]*)|\bctx\s*\[\s*['"]([A-Za-z_$][\w$]*)['"]\s*\]/g;
  for (const match of source.matchAll(pattern)) names.add((match[1] ?? match[2]) as string);
  return [...names].sort();
}

/** Host tools named literally in `callTool('name'…)` calls (what ctx.clat.callTool reaches). */
export function scanHostToolCalls(source: string): string[] {
  const names = new Set<string>();
  for (const match of source.matchAll(/\bcallTool\s*\(\s*['"`]([a-z_]+)['"`]/g)) {
    const name = match[1] as string;
    if ((NATIVE_HOST_TOOLS as readonly string[]).includes(name)) names.add(name);
  }
  return [...names];
}

/**
 * Package capabilities implied by the seams (clat-original §8, `package`): fs → the five file
 * tools, shell → run_command, `clat.callTool('x')` literals → x.
 */
export function capabilitiesFor(
  seams: ReadonlySet<string>,
  hasTools: boolean,
  calledHostTools: readonly string[] = [],
): PluginCapabilities {
  const hostTools = new Set<string>(calledHostTools);
  if (seams.has('fs')) for (const tool of FILE_HOST_TOOLS) hostTools.add(tool);
  if (seams.has('shell')) hostTools.add('run_command');
  return {
    tools: hasTools || seams.has('tools') || seams.has('web'),
    prompts: seams.has('systemPrompt'),
    sampling: seams.has('llm'),
    elicitation: seams.has('userQuestions'),
    // fs resolves paths against the project root it reads from context/get.
    hostContext: ['clat', 'sessions', 'agents', 'fs', 'shell'].some((seam) => seams.has(seam)),
    hostTools: NATIVE_HOST_TOOLS.filter((tool) => hostTools.has(tool)),
  };
}

/** Bundles and imports a plugin entry into this process (inspect, serve). */
export async function loadPluginModule(
  pkg: PluginPackage,
): Promise<{ module: Record<string, unknown>; sources: string[]; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'clat-dsh-'));
  const outfile = join(dir, 'plugin.mjs');
  try {
    const { sources } = await bundle({
      entryCode: `export * from ${JSON.stringify(pkg.entry)};\nimport * as __plugin from ${JSON.stringify(pkg.entry)};\nexport default (__plugin.default ?? __plugin);\n`,
      resolveDir: pkg.root,
      outfile,
      packageRoot: pkg.root,
    });
    const module = (await import(pathToFileURL(outfile).href).catch((error: unknown) => {
      throw new DshAdapterError(
        DshErrorCode.PLUGIN_NOT_LOADABLE,
        `loading the plugin ${pkg.entry} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    })) as Record<string, unknown>;
    // One self-contained file, loaded: nothing reads it again, so a served process that is
    // killed later leaves no temp directory behind.
    return { module, sources, cleanup: async () => {} };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The object serveClat should load from a bundled module namespace. */
export function pluginExport(module: Record<string, unknown>): unknown {
  const value = module.default;
  return value === undefined ? module : value;
}

export async function inspectPlugin(
  pkg: PluginPackage,
  options: { config?: unknown; toolHints?: Readonly<Record<string, ToolHint>> } = {},
): Promise<InspectReport> {
  const loaded = await loadPluginModule(pkg);
  try {
    const plugin = pluginExport(loaded.module);
    const normalized = normalizePlugin(plugin);
    const recorder: SeamRecorder = { accessed: new Set(), missing: new Set() };
    const stderr = new PassThrough();
    stderr.resume();
    let applyError: string | undefined;
    let tools: InspectReport['tools'] = [];
    let systemPrompt = false;
    try {
      const handle = await startServer(
        plugin,
        {
          input: new PassThrough(),
          output: new PassThrough(),
          errorOutput: stderr,
          env: process.env,
          ...(options.config === undefined ? {} : { config: options.config }),
          ...(options.toolHints === undefined ? {} : { toolHints: options.toolHints }),
        },
        { recorder },
      );
      tools = handle
        .listTools()
        .map((tool) => ({ name: tool.name, hint: hintOf(tool.annotations) }));
      systemPrompt = handle.hasSystemPrompt();
      await handle.dispose();
    } catch (error) {
      applyError = describeError(error);
    }
    const referenced = new Set<string>();
    const calledHostTools = new Set<string>();
    for (const file of loaded.sources) {
      const source = await readFile(file, 'utf8');
      for (const name of scanContextReferences(source)) referenced.add(name);
      for (const name of scanHostToolCalls(source)) calledHostTools.add(name);
    }
    const evidence = new Set<string>([
      ...normalized.inject.required,
      ...normalized.inject.optional,
      ...recorder.accessed,
      ...referenced,
    ]);
    const seams = SUPPORTED_SERVICES.filter((service) => evidence.has(service));
    const unsupported = [
      ...new Set([
        ...normalized.inject.required.filter((name) => !KNOWN.has(name)),
        ...recorder.missing,
      ]),
    ].sort();
    const unresolved = [...referenced]
      .filter((name) => !KNOWN.has(name) && !unsupported.includes(name))
      .sort();
    const seamSet = new Set<string>(seams);
    return {
      entry: pkg.entry,
      kind: normalized.kind,
      name: normalized.name,
      seams,
      unsupported,
      unresolved,
      status:
        unsupported.length > 0
          ? 'unsupported'
          : seams.some((seam) => HOST_BRIDGED.has(seam))
            ? 'host-bridged'
            : 'portable',
      applied: applyError === undefined,
      applyError,
      tools,
      systemPrompt,
      capabilities: capabilitiesFor(seamSet, tools.length > 0, [...calledHostTools]),
      configSchema: configSchemaOf(normalized.config),
    };
  } finally {
    await loaded.cleanup();
  }
}

/** The hint a tool's annotations express (what CLAT will map to an effect). */
function hintOf(annotations: Record<string, boolean> | undefined): ToolHint {
  if (annotations === undefined) return 'destructive';
  if (annotations.readOnlyHint === true)
    return annotations.openWorldHint === false ? 'read-only' : 'network';
  return annotations.destructiveHint === false ? 'write' : 'destructive';
}

/**
 * The text report. Every field the plugin supplies (its entry path and name, the names it injects
 * or references, its tools, the error its apply() threw) goes through the terminal sanitiser: a
 * plugin under inspection is untrusted. `--json` prints the report itself, unchanged.
 */
export function formatInspectReport(report: InspectReport): string {
  const list = (names: readonly string[]) => names.map(sanitizeTerminalLine).join(', ');
  const lines = [
    `entry:        ${sanitizeTerminalLine(report.entry)}`,
    `form:         ${report.kind}${report.name === undefined ? '' : ` (${sanitizeTerminalLine(report.name)})`}`,
    `status:       ${report.status}`,
    `seams:        ${report.seams.length === 0 ? '(none)' : list(report.seams)}`,
    `unsupported:  ${report.unsupported.length === 0 ? '(none)' : list(report.unsupported)}`,
  ];
  if (report.unresolved.length > 0)
    lines.push(
      `unresolved:   ${list(report.unresolved)} (ctx references the adapter does not serve)`,
    );
  lines.push(
    report.applied
      ? `tools:        ${report.tools.length === 0 ? '(none)' : report.tools.map((tool) => `${sanitizeTerminalLine(tool.name)} [${tool.hint}]`).join(', ')}`
      : `apply():      not run to completion: ${sanitizeTerminalLine(report.applyError ?? '')}`,
  );
  lines.push(`systemPrompt: ${report.systemPrompt ? 'yes (one marked prompt)' : 'no'}`);
  const caps = report.capabilities;
  const flags = (['tools', 'prompts', 'sampling', 'elicitation', 'hostContext'] as const).filter(
    (key) => caps[key],
  );
  lines.push(
    `capabilities: ${[...flags, ...caps.hostTools.map((tool) => `hostTools.${sanitizeTerminalLine(tool)}`)].join(', ') || '(none)'}`,
  );
  return `${lines.join('\n')}\n`;
}
