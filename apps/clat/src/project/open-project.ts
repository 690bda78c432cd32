/**
 * Opens the current project for a command: resolves `~/.clat`, enforces project trust before
 * anything is spawned or contacted, loads mcp.json (bad entries reported, the rest mounted) and
 * composes the kernel host with the connectors wired into this build.
 * @module
 */
import { stat } from 'node:fs/promises';
import { expandServerVariables, type McpServerConfig, mcpEntry } from '@clat/adapter-mcp';
import type { PrestartedServers } from '@clat/adapter-mcp-stdio/prestart';
import { collectMountSources, createHost, type Host, type MountEntry } from '@clat/kernel';
import { ApprovalStore } from '../approvals/approval-store.js';
import { createDigestLookup } from '../approvals/entry-digest.js';
import type { CommandIO } from '../command.js';
import { type ClatHome, projectMcpFile, resolveClatHome } from '../config/clat-home.js';
import { formatIssue } from '../config/mcp-config-file.js';
import {
  isTrusted,
  projectRootOf,
  trustAdvice,
  trustEntryIssue,
  trustNotRecordable,
  trustProject,
} from '../config/trust-store.js';
import { readUserConfig, throwUserConfigIssues, type UserConfig } from '../config/user-config.js';
import { CliError, CliErrorCode } from '../errors.js';
import { askLine, isTty, isYes } from '../ui/line-prompt.js';
import type { ApprovalMemory } from '../ui/tty-approver.js';
import { type Composition, defaultComposition } from './composition.js';
import { loadConfiguredServers } from './configured-servers.js';
import { loginCommand } from './login-command.js';
import { operandCommand } from './project-command.js';
import { skippedEntries } from './skipped-entries.js';

export interface OpenProjectOptions {
  /** `--project`; defaults to the current directory. */
  project?: string | undefined;
  /** `--trust`: trust for this invocation without asking. */
  trust?: boolean | undefined;
  /** Ask on the TTY when the project is untrusted (interactive commands). */
  promptForTrust?: boolean;
  /** Replaces the adapters wired into this build (custom distributions, the demo). */
  composition?: Composition;
  /**
   * Mounts only the entries this accepts (one-shot commands that need one server or tool);
   * interactive sessions mount everything.
   */
  select?: (entry: MountEntry) => boolean;
  /**
   * The command works without the model (`clat tools`, `clat mcp`, `clat call`): a config.json
   * problem is a warning (`userConfigIssues`) instead of an error. Otherwise (chat, exec) any
   * problem in it stops the command, naming the file and field.
   */
  modelOptional?: boolean;
  /** Stdio servers spawned ahead of the host (main's prestart); their transports adopt them. */
  prestarted?: PrestartedServers | undefined;
}

export interface OpenedProject {
  session: Host;
  home: ClatHome;
  user: UserConfig;
  /**
   * config.json problems a `modelOptional` command goes on with (its provider, or the whole file,
   * unused), one line each naming file and field.
   */
  userConfigIssues: string[];
  /** mcp.json problems, one line each, naming file and field. */
  configIssues: string[];
  /** What those problems cost (entries skipped, files to fix), for `clat mcp`; none: undefined. */
  skippedEntries: string | undefined;
  /** Source decisions (GLM pack on/off, replaced packages), for /mcp. */
  sourceNotes: string[];
  composition: Composition;
  /** Remembered approvals of this project (session answers and saved ones). */
  approvals: ApprovalMemory;
}

/** Resolves home and project and checks trust; nothing is spawned here. */
export async function requireTrust(
  io: CommandIO,
  options: OpenProjectOptions,
): Promise<{ home: ClatHome; projectRoot: string }> {
  const home = resolveClatHome(io.env, io.cwd);
  const projectRoot = await projectRootOf(options.project ?? '.', io.cwd, home);
  if (options.trust === true || (await isTrusted(home.trustFile, projectRoot))) {
    return { home, projectRoot };
  }
  if (options.promptForTrust === true && isTty(io.stdin)) {
    io.stderr.write(
      `The project ${projectRoot} is not trusted.\nTrusting it lets CLAT start the MCP servers configured in ${home.mcpFile}${(await hasFile(projectMcpFile(projectRoot))) ? ` and in the project's own ${projectMcpFile(projectRoot)}` : ''}.\n`,
    );
    // A read-only CLAT home cannot record trust: it is asked for this run only.
    const unrecordable = trustNotRecordable(home.trustFile);
    if (unrecordable !== undefined) {
      io.stderr.write(`CLAT cannot record trust (${unrecordable}).\n`);
    }
    const question =
      unrecordable === undefined ? 'Trust this project? [y/N] ' : 'Trust it for this run? [y/N] ';
    const answer = await askLine(io.stdin, io.stderr, question);
    if (isYes(answer)) {
      if (unrecordable === undefined) await trustProject(home.trustFile, projectRoot);
      return { home, projectRoot };
    }
  }
  // An entry the store does not count (`false`, no `trustedAt`) is named: the person may think
  // the project trusted, or untrusted by it.
  const entry = await trustEntryIssue(home.trustFile, projectRoot);
  throw new CliError(
    CliErrorCode.CLI_PROJECT_UNTRUSTED,
    `project ${projectRoot} is not trusted, so no MCP server was started; ${trustAdvice(home.trustFile, projectRoot)}${entry === undefined ? '' : ` (${entry})`}`,
  );
}

/**
 * The fields an approval digest is computed over: an MCP entry's mcp.json config, a WASM
 * entry's reference with its transport (the shape approvals were first bound to).
 */
function digestView(entry: MountEntry): { name: string; [field: string]: unknown } {
  if (entry.kind === 'mcp') return entry.config as McpServerConfig;
  const { validateConfig: _checked, ...config } = entry.config as Record<string, unknown>;
  return { ...config, transport: entry.kind, name: entry.name, origin: entry.origin };
}

async function hasFile(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}

export async function openProject(
  io: CommandIO,
  options: OpenProjectOptions,
): Promise<OpenedProject> {
  const { home, projectRoot } = await requireTrust(io, options);
  const user = await readUserConfig(home.configFile, io.env);
  if (options.modelOptional !== true) throwUserConfigIssues(user);
  // The project's own `.clat/mcp.json` is read only now that the project is trusted.
  const mcp = await loadConfiguredServers(home, projectRoot);
  const { configured } = mcp;
  const notes = [...mcp.notes];
  // `${VAR}` references are resolved here, at mount, never written back or listed expanded.
  const userServers: McpServerConfig[] = [];
  for (const { server, file } of configured) {
    if (server.disabled === true) {
      notes.push(
        file === home.mcpFile
          ? `${JSON.stringify(server.name)} is disabled; "${operandCommand(['mcp', 'enable'], server.name)}" starts it again`
          : `${JSON.stringify(server.name)} is disabled in ${file}`,
      );
      continue;
    }
    const result = expandServerVariables(server, { file, env: io.env, projectRoot });
    if ('server' in result) userServers.push(result.server);
    else mcp.issues.push(...result.issues);
  }
  const composition = options.composition ?? defaultComposition();
  const extra = await collectMountSources(
    await composition.sources({ home, env: io.env, user }),
    // A user entry that failed expansion (or is disabled) still reserves its name.
    { taken: configured.map((entry) => entry.server.name) },
  );
  const issues = [...mcp.issues, ...extra.issues];
  const configIssues = issues.map(formatIssue);
  const entries = [...userServers.map(mcpEntry), ...extra.entries];
  const approvals: ApprovalMemory = {
    session: new Set(),
    store: new ApprovalStore(home.approvalsFile),
    projectRoot,
    digestOf: createDigestLookup(entries.map(digestView)),
    // From elsewhere (`-C`), a bare `clat approvals reset` would look at another project and
    // forget nothing; it takes no --trust.
    forgetCommand: (tool) =>
      operandCommand(['approvals', 'reset'], tool, { project: options.project }),
  };
  const selected = entries.filter((entry) => options.select === undefined || options.select(entry));
  const session = createHost({
    projectRoot,
    entries: selected,
    staticPrompts: extra.prompts,
    connectors: await composition.connectors({
      env: io.env,
      home,
      entries: selected,
      prestarted: options.prestarted,
      // A login hint names this run's project: from elsewhere, or without --trust, the bare
      // `clat mcp login` would not find a server of the project's own mcp.json.
      loginCommand: (name) => loginCommand(name, options),
      notice: (text) => io.stderr.write(`clat: ${text}\n`),
    }),
    nativeTools: composition.nativeTools({ projectRoot }),
    // The resource tools only where something is configured (whether or not this command mounts
    // it): with no plugin, no resource could ever be read, and the model is offered no tool that
    // can only say so.
    ...(entries.length === 0 || composition.hostTools === undefined
      ? {}
      : { hostTools: composition.hostTools }),
    // A server relays sampling's refusal as its own error text; this is the part a person acts
    // on. Not the resolved path: the refusal goes to the server, which need not learn the home.
    noModelHint: `set "provider" in ${io.env.CLAT_HOME?.trim() ? '$CLAT_HOME' : '~/.clat'}/config.json`,
  });
  return {
    session,
    home,
    user,
    userConfigIssues: user.issues.map((issue) =>
      user.modelIssues.includes(issue)
        ? `${issue}; commands that use the model refuse to run until it is fixed`
        : issue,
    ),
    configIssues,
    skippedEntries: skippedEntries(issues),
    sourceNotes: [...notes, ...extra.notes],
    composition,
    approvals,
  };
}
