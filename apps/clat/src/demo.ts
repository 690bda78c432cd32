/**
 * `pnpm demo`: the embedded default. Mounts the bundled demo project (apps/clat/demo/project)
 * with the example plugins in a temporary CLAT home, prints /mcp and runs a scripted session
 * through the real pipeline. Offline, no API key. Exits non-zero when a demo plugin fails.
 * @module
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import {
  type ApprovalRequest,
  type Approver,
  errorMessage,
  isKernelError,
  KernelErrorCode,
  sanitizeTerminalLine as oneLine,
  type RunEvent,
  sanitizeTerminalText,
} from '@clat/kernel';
import type { CommandIO } from './command.js';
import { main } from './main.js';
import { openProject } from './project/open-project.js';
import { formatMcpStatus } from './ui/mcp-status.js';
import { formatTools } from './ui/tool-list.js';
import { describeApproval } from './ui/tty-approver.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEMO_PROJECT = join(REPO_ROOT, 'apps/clat/demo/project');
/** The example plugins the demo mounts: an installed mcp-stdio package, a DSH plugin, a WASM guest. */
const NOTES_PACKAGE = join(REPO_ROOT, 'plugins/mcp-notes/dist/package');
const DSH_CLI = join(REPO_ROOT, 'packages/adapter-dsh/bin/clat-dsh.js');
const DSH_TODO = join(REPO_ROOT, 'plugins/dsh-todo');
const WASM_MANIFEST = join(REPO_ROOT, 'plugins/wasm-summarize/clat-plugin.json');
const WASM_COMPONENT = join(REPO_ROOT, 'plugins/wasm-summarize/dist/plugin.wasm');
/** Plugins that must connect for the demo to pass. */
const REQUIRED = ['mcp-notes', 'todo', 'wasm-summarize'];

interface Step {
  say: string;
  tool: string;
  args: Record<string, unknown>;
}

/** The scripted session: native tools, plugin tools, and one call the approver refuses. */
const SCRIPT: Step[] = [
  { say: 'List the project files (native tool)', tool: 'list_files', args: { path: '.' } },
  { say: 'Read the README (native tool)', tool: 'read_file', args: { path: 'README.md' } },
  {
    say: 'Keep a note (installed mcp-stdio package; write effect: allowed in project-write)',
    tool: 'mcp_mcp_notes_add_note',
    args: { title: 'Demo project', body: 'greet() lives in src/greet.js', tags: ['demo'] },
  },
  { say: 'Search the notes', tool: 'mcp_mcp_notes_search_notes', args: { query: 'greet' } },
  {
    say: 'Add a todo (DSH plugin; it writes through the host write_file tool and the pipeline)',
    tool: 'mcp_todo_todo_add',
    args: { text: 'Write tests for greet()' },
  },
  { say: 'List the todos', tool: 'mcp_todo_todo_list', args: {} },
  {
    say: 'Count words (WASM component, pure effect, no host access)',
    tool: 'wasm_wasm_summarize_word_count',
    args: { text: 'one kernel, many adapters, one pipeline' },
  },
  {
    say: 'Ask the host for context (WASM component through the host bridge)',
    tool: 'wasm_wasm_summarize_project_info',
    args: {},
  },
  {
    say: 'Delete a note (destructive effect: the mode table asks, the scripted user says no)',
    tool: 'mcp_mcp_notes_delete_note',
    args: { id: 'all' },
  },
];

function section(out: NodeJS.WritableStream, title: string): void {
  out.write(`\n── ${title} ${'─'.repeat(Math.max(4, 70 - title.length))}\n`);
}

/** Indents a block of tool output; the text is sanitised here because plugins wrote it. */
function indent(text: string, limit = 12): string {
  const lines = sanitizeTerminalText(text.trimEnd()).split('\n');
  const shown = lines.slice(0, limit).map((line) => `    ${line}`);
  if (lines.length > limit) shown.push(`    … (${lines.length - limit} more lines)`);
  return `${shown.join('\n')}\n`;
}

function describeEvent(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'tool.approved':
      return `  ✓ ${oneLine(event.tool)}: approved by ${event.by}`;
    case 'tool.denied':
      return `  ✗ ${oneLine(event.tool)}: denied: ${oneLine(event.reason)}`;
    case 'tool.finished':
      return `  ✓ ${oneLine(event.tool)}: finished in ${event.durationMs} ms${event.isError ? ' (tool error)' : ''}`;
    case 'tool.failed':
      return `  ✗ ${oneLine(event.tool)}: failed: ${oneLine(event.error.message)}`;
    default:
      return undefined;
  }
}

export async function runDemo(out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const root = await mkdtemp(join(tmpdir(), 'clat-demo-'));
  const home = join(root, 'clat-home');
  const project = join(root, 'project');
  await mkdir(home, { recursive: true });
  const env = { ...process.env, CLAT_HOME: home };
  const io: CommandIO = {
    stdin: process.stdin,
    stdout: out as CommandIO['stdout'],
    stderr: process.stderr,
    env,
    cwd: project,
  };
  const quiet = new PassThrough().resume();
  out.write(`CLAT demo — temporary CLAT home ${home}\n`);
  try {
    section(out, 'configuration');
    for (const [file, hint] of [
      [NOTES_PACKAGE, 'pnpm build'],
      [WASM_COMPONENT, 'pnpm build'],
      [join(REPO_ROOT, 'packages/adapter-dsh/dist'), 'pnpm build'],
    ] as const) {
      if (!existsSync(file)) {
        out.write(`${file} is missing; run "${hint}" first.\n`);
        return 1;
      }
    }
    // A copy of the bundled project, so plugin writes never touch the repository.
    await cp(DEMO_PROJECT, project, { recursive: true });
    const clat = (argv: string[]) => main(argv, { ...io, stdout: quiet });
    const installed = await clat(['plugin', 'install', NOTES_PACKAGE, '--accept-capabilities']);
    out.write(`clat plugin install plugins/mcp-notes/dist/package → exit ${installed}\n`);
    const mcp = {
      mcpServers: {
        todo: { command: process.execPath, args: [DSH_CLI, 'serve', DSH_TODO] },
        // Shows failure isolation and stderr redaction: it prints a fake key and exits.
        broken: {
          command: process.execPath,
          args: [
            '-e',
            'console.error("demo: connecting with Authorization: Bearer sk-demo-0123456789abcdef"); console.error("demo: giving up"); process.exit(3)',
          ],
        },
      },
    };
    await writeFile(join(home, 'mcp.json'), `${JSON.stringify(mcp, null, 2)}\n`);
    out.write(
      `wrote mcp.json: ${Object.keys(mcp.mcpServers).join(', ')} (todo = DSH plugin via clat-dsh serve)\n`,
    );
    await writeFile(
      join(home, 'plugins.json'),
      `${JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST } }, null, 2)}\n`,
    );
    out.write('wrote plugins.json: wasm-summarize (WASM component, manifest-backed)\n');
    // The first jco transpile of a component takes seconds; warm the cache the way a user would
    // before a first run, so the 20 s initial-surface wait is about connecting, not compiling.
    const warm = Date.now();
    await prepareComponent({ componentPath: WASM_COMPONENT, cacheDir: wasmCacheDir(home) });
    out.write(`warmed the WASM component cache in ${Date.now() - warm} ms\n`);
    await clat(['trust', project]);
    out.write(`clat trust ${project}\n`);

    const opened = await openProject(io, {});
    const { session } = opened;
    const stopEvents = session.events.on((event) => {
      const line = describeEvent(event);
      if (line !== undefined) out.write(`${line}\n`);
    });
    try {
      section(out, 'startup (servers connect in parallel)');
      session.start();
      await session.mount.freezeForFirstRun();
      section(out, '/mcp');
      const summary = session.mount.summary();
      out.write(
        formatMcpStatus(summary, {
          configIssues: opened.configIssues,
          skippedEntries: opened.skippedEntries,
          notes: opened.sourceNotes,
        }),
      );
      section(out, '/tools');
      out.write(formatTools(session.registry.list()));
      section(out, 'system prompt contributions (packages, DSH)');
      for (const prompt of session.prompts.list()) {
        out.write(`  ${oneLine(`${prompt.name} [${prompt.source.kind}:${prompt.source.id}]`)}\n`);
      }

      section(out, 'scripted session (mode project-write)');
      const approver: Approver = {
        approve: async (request: ApprovalRequest) => {
          out.write(`${indent(describeApproval(request))}    > n (scripted answer)\n`);
          return { outcome: 'deny', reason: 'the scripted demo user said no' };
        },
      };
      const run = await session.beginRun({ mode: 'project-write', approver });
      let calls = 0;
      let failures = 0;
      try {
        for (const step of SCRIPT) {
          out.write(`\n» ${step.say}\n  ${step.tool} ${JSON.stringify(step.args)}\n`);
          try {
            const result = await session.pipeline.call(step.tool, step.args, run.context);
            calls++;
            if (result.isError === true) failures++;
            out.write(indent(result.content));
          } catch (error) {
            // The scripted denial is the one expected failure.
            if (!(isKernelError(error) && error.code === KernelErrorCode.PERMISSION_DENIED))
              failures++;
            out.write(`    (${oneLine(errorMessage(error))})\n`);
          }
        }
      } finally {
        await run.end();
      }
      section(out, 'teardown');
      await session.close();
      out.write('project scope closed: leases revoked, servers stopped\n');
      const missing = REQUIRED.filter(
        (name) => summary.servers.find((server) => server.name === name)?.state !== 'connected',
      );
      if (missing.length > 0 || failures > 0) {
        out.write(
          `\nDEMO FAILED: ${missing.length > 0 ? `not connected: ${missing.join(', ')}` : `${failures} scripted call(s) failed`}\n`,
        );
        return 1;
      }
      out.write(`\nDemo finished: ${calls} tool calls through the pipeline.\n`);
      return 0;
    } finally {
      stopEvents();
      await session.close().catch(() => {});
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

process.exitCode = await runDemo();
