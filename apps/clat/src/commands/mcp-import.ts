/**
 * `clat mcp import --from <client>`: copies the MCP servers another client has configured into
 * ~/.clat/mcp.json, in one atomic write, reporting what could not be mapped.
 * @module
 */
import { homedir } from 'node:os';
import { describeServerConfig, type McpServerConfig, parseServerEntry } from '@clat/adapter-mcp';
import {
  hideCredentialSegments,
  redactSecrets,
  sanitizeTerminalLine,
  shellWord,
} from '@clat/kernel';
import { parseFlags } from '../cli-options.js';
import type { CommandIO } from '../command.js';
import { projectMcpFile, resolveClatHome } from '../config/clat-home.js';
import {
  IMPORT_CLIENTS,
  type ImportClient,
  isImportClient,
  type SourceFile,
  shapeOfFile,
  sourceFiles,
} from '../config/import/client-sources.js';
import { mapForeignEntry } from '../config/import/map-entry.js';
import { ForeignFileError, readForeignFile } from '../config/import/read-foreign.js';
import {
  existingServerNames,
  putServerEntries,
  serverNameProblem,
} from '../config/mcp-config-file.js';
import { projectRootOf } from '../config/trust-store.js';
import { CliError, CliErrorCode } from '../errors.js';
import { jsonOutput } from '../ui/json-output.js';
import { installNpxServer } from './mcp-add-npx.js';

/** Names CLAT refuses as mcp.json keys: path-like, prototype keys, control characters. */
interface Planned {
  name: string;
  file: string;
  scope: SourceFile['scope'];
  action: 'add' | 'replace' | 'skip';
  reason?: string;
  entry?: Record<string, unknown>;
  notes: string[];
}

function homeOf(io: CommandIO): string {
  return io.env.HOME || io.env.USERPROFILE || homedir();
}

/** One readable line for an entry, without env or header values; args are redacted. */
function describe(name: string, entry: Record<string, unknown>, file: string): string {
  const parsed = parseServerEntry(file, name, entry, 'user');
  if (!('server' in parsed)) return '';
  const shown = describeServerConfig(parsed.server) as {
    transport: string;
    type?: string;
    url?: string;
    command?: string;
    args?: string[];
    env?: string[];
    headers?: string[];
  };
  const target =
    shown.transport === 'http'
      ? `${hideCredentialSegments(shown.url ?? '')}${shown.headers?.length ? ` (headers: ${shown.headers.join(', ')})` : ''}`
      : `${[shown.command, ...(shown.args ?? [])].join(' ')}${shown.env?.length ? ` (env: ${shown.env.join(', ')})` : ''}`;
  return `${shown.type === 'sse' ? 'sse' : shown.transport}  ${redactSecrets(target)}`;
}

export async function importServers(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags('mcp import', argv, {
    from: { type: 'string' },
    file: { type: 'string' },
    'dry-run': { type: 'boolean' },
    force: { type: 'boolean' },
    json: { type: 'boolean' },
    project: { type: 'string', short: 'C' },
    scope: { type: 'string', short: 's' },
  });
  const scope = values.scope ?? 'user';
  if (scope !== 'user' && scope !== 'project') {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat mcp import: --scope must be user or project, not ${JSON.stringify(scope.slice(0, 40))}`,
    );
  }
  const from = values.from ?? positionals[0];
  if (from === undefined || !isImportClient(from)) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat mcp import: --from must be one of ${IMPORT_CLIENTS.join(', ')}${from === undefined ? '' : ` (got ${JSON.stringify(from)})`}`,
    );
  }
  const client: ImportClient = from;
  const home = resolveClatHome(io.env, io.cwd);
  const projectRoot = await projectRootOf(values.project ?? '.', io.cwd, home);
  // User servers go to ~/.clat/mcp.json and start in every trusted project; a project's own
  // servers (its .mcp.json, a client's per-project entries) go to its .clat/mcp.json, read only
  // in that project once trusted. Each import writes one of them.
  const target = scope === 'user' ? home.mcpFile : projectMcpFile(projectRoot);
  const otherScope = scope === 'user' ? 'project' : 'user';
  const rerun = `clat mcp import --from ${client}${values.file === undefined ? '' : ` --file ${shellWord(values.file)}`}${values.project === undefined ? '' : ` -C ${shellWord(values.project)}`} --scope ${otherScope}`;
  const userHome = homeOf(io);
  const files: SourceFile[] =
    values.file === undefined
      ? sourceFiles(client, {
          home: userHome,
          cwd: projectRoot,
          env: io.env,
          platform: process.platform,
        })
      : [{ path: values.file, shape: shapeOfFile(client, values.file), scope: 'user' }];

  const planned = new Map<string, Planned>();
  const read: string[] = [];
  for (const source of files) {
    let found: Awaited<ReturnType<typeof readForeignFile>>;
    try {
      found = await readForeignFile(source.path, source.shape, projectRoot);
    } catch (error) {
      if (error instanceof ForeignFileError) {
        throw new CliError(CliErrorCode.CLI_CONFIG_INVALID, error.message, { cause: error });
      }
      throw error;
    }
    if (found === undefined) continue;
    read.push(source.path);
    for (const server of found.servers) {
      const mapped = mapForeignEntry(server.raw, { client, home: userHome, inputs: found.inputs });
      const notes = [...mapped.notes];
      const earlier = planned.get(server.name);
      if (earlier !== undefined)
        notes.push(`replaces the entry of the same name in ${earlier.file}`);
      const serverScope = server.projectOnly === true ? 'project' : source.scope;
      let reason = mapped.skipped;
      if (reason === undefined && serverScope !== scope) {
        reason =
          serverScope === 'project'
            ? `a server of this project only (${server.projectOnly === true ? `${client}'s per-project entry` : "the project's file"}); to import it into ${projectMcpFile(projectRoot)}, run "${rerun}"`
            : `a user server; to import it into ${home.mcpFile}, run "${rerun}"`;
      }
      const nameProblem = serverNameProblem(server.name);
      if (reason === undefined && nameProblem !== undefined) {
        reason = `its name is not usable as a CLAT server name (it ${nameProblem})`;
      }
      if (reason === undefined && mapped.entry !== undefined) {
        const checked = parseServerEntry(target, server.name, mapped.entry, scope);
        if ('issues' in checked)
          reason = checked.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
      }
      planned.set(server.name, {
        name: server.name,
        file: source.path,
        scope: source.scope,
        action: reason === undefined ? 'add' : 'skip',
        ...(reason === undefined ? {} : { reason }),
        ...(mapped.entry === undefined ? {} : { entry: mapped.entry }),
        notes,
      });
    }
  }
  if (read.length === 0) {
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      `no ${client} configuration found (looked in ${files.map((file) => file.path).join(', ')}); pass --file <path> to name one`,
    );
  }

  const existing = await existingServerNames(target);
  for (const plan of planned.values()) {
    if (plan.action !== 'add' || !existing.has(plan.name)) continue;
    if (values.force === true) plan.action = 'replace';
    else {
      plan.action = 'skip';
      plan.reason = `a server named ${JSON.stringify(plan.name)} is already in ${target}; pass --force to replace it`;
    }
  }
  const writes = [...planned.values()].filter((plan) => plan.action !== 'skip');
  const dryRun = values['dry-run'] === true;
  let written: McpServerConfig[] = [];
  if (!dryRun && writes.length > 0) {
    written = await putServerEntries(
      target,
      writes.map((plan) => ({ name: plan.name, entry: plan.entry ?? {} })),
      { replace: values.force === true },
    );
  }

  if (values.json === true) {
    const servers = [...planned.values()].map((plan) => ({
      name: plan.name,
      action: plan.action,
      source: plan.file,
      ...(plan.reason === undefined ? {} : { reason: plan.reason }),
      notes: plan.notes,
    }));
    io.stdout.write(
      jsonOutput({ from: client, read, target, scope, dryRun, servers }, 'clat mcp import'),
    );
    return 0;
  }
  io.stdout.write(`Read ${read.join(', ')}\n`);
  if (planned.size === 0) io.stdout.write('  (no servers configured there)\n');
  for (const plan of planned.values()) {
    const mark = plan.action === 'skip' ? '-' : plan.action === 'replace' ? '~' : '+';
    const line =
      plan.action === 'skip'
        ? `skipped: ${plan.reason}`
        : describe(plan.name, plan.entry ?? {}, target);
    // Names and notes come from another client's file: one sanitised line each.
    io.stdout.write(
      `  ${mark} ${sanitizeTerminalLine(plan.name)}  ${sanitizeTerminalLine(line)}\n`,
    );
    for (const note of plan.notes) io.stdout.write(`      note: ${sanitizeTerminalLine(note)}\n`);
  }
  const verb = dryRun ? 'Would write' : 'Wrote';
  io.stdout.write(
    writes.length === 0
      ? `Nothing to write to ${target}\n`
      : `${verb} ${writes.length} server${writes.length === 1 ? '' : 's'} to ${target}${dryRun ? ' (dry run: nothing changed)' : '; restart CLAT to mount them'}\n`,
  );
  // As `clat mcp add`: each npx server's package goes into npx's cache now (a note without a
  // terminal), or its first start would download it inside the handshake; Ctrl-C skips the rest.
  const where = { file: target, home, ...(scope === 'project' ? { root: projectRoot } : {}) };
  for (const server of written) {
    if ((await installNpxServer(server, where, io)) === 'cancelled') break;
  }
  return 0;
}
