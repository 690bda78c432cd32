/**
 * `pnpm demo`: the embedded default. Mounts the bundled demo project (apps/clat/demo/project)
 * with the example plugins in a temporary CLAT home, prints /mcp and runs a scripted session
 * through the real pipeline. Offline, no API key. Exits non-zero when the demo plugin fails.
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ApprovalRequest, type Approver, errorMessage, type RunEvent } from '@clat/kernel';
import type { CommandIO } from './command.js';
import { trustProject } from './config/trust-store.js';
import { openProject } from './project/open-project.js';
import { formatMcpStatus } from './ui/mcp-status.js';
import { formatTools } from './ui/tool-list.js';
import { describeApproval } from './ui/tty-approver.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEMO_PROJECT = join(REPO_ROOT, 'apps/clat/demo/project');
const NOTES_ENTRY = join(REPO_ROOT, 'plugins/mcp-notes/dist/package/server.mjs');

interface Step {
  say: string;
  tool: string;
  args: Record<string, unknown>;
}

/** The scripted session: native tools, plugin tools, and one call the approver refuses. */
const SCRIPT: Step[] = [
  { say: 'List the project files', tool: 'list_files', args: { path: '.' } },
  { say: 'Read the README', tool: 'read_file', args: { path: 'README.md' } },
  {
    say: 'Keep a note about it (plugin tool, write effect: allowed in project-write)',
    tool: 'mcp_notes_add_note',
    args: { title: 'Demo project', body: 'greet() lives in src/greet.js', tags: ['demo'] },
  },
  { say: 'Search the notes', tool: 'mcp_notes_search_notes', args: { query: 'greet' } },
  { say: 'List the notes', tool: 'mcp_notes_list_notes', args: {} },
  {
    say: 'Delete every note (destructive effect: the mode table asks, the scripted user says no)',
    tool: 'mcp_notes_delete_note',
    args: { id: 'all' },
  },
];

function section(out: NodeJS.WritableStream, title: string): void {
  out.write(`\n── ${title} ${'─'.repeat(Math.max(4, 70 - title.length))}\n`);
}

function indent(text: string, limit = 12): string {
  const lines = text.trimEnd().split('\n');
  const shown = lines.slice(0, limit).map((line) => `    ${line}`);
  if (lines.length > limit) shown.push(`    … (${lines.length - limit} more lines)`);
  return `${shown.join('\n')}\n`;
}

function describeEvent(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'tool.approved':
      return `  ✓ approved by ${event.by}`;
    case 'tool.denied':
      return `  ✗ denied: ${event.reason}`;
    case 'tool.finished':
      return `  ✓ finished in ${event.durationMs} ms${event.isError ? ' (tool error)' : ''}`;
    case 'tool.failed':
      return `  ✗ failed: ${event.error.message}`;
    default:
      return undefined;
  }
}

export async function runDemo(out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const home = await mkdtemp(join(tmpdir(), 'clat-demo-'));
  const env = { ...process.env, CLAT_HOME: home };
  const io: CommandIO = {
    stdin: process.stdin,
    stdout: out as CommandIO['stdout'],
    stderr: process.stderr,
    env,
    cwd: DEMO_PROJECT,
  };
  out.write(`CLAT demo — temporary CLAT home ${home}\n`);
  try {
    section(out, 'configuration');
    if (!existsSync(NOTES_ENTRY)) {
      out.write(`The mcp-notes plugin is not built (${NOTES_ENTRY}); run "pnpm build" first.\n`);
      return 1;
    }
    const notesDir = join(home, 'notes-data');
    await mkdir(notesDir, { recursive: true });
    const mcp = {
      mcpServers: {
        notes: { command: process.execPath, args: [NOTES_ENTRY], env: { MCP_NOTES_DIR: notesDir } },
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
      `wrote ${join(home, 'mcp.json')} with servers: ${Object.keys(mcp.mcpServers).join(', ')}\n`,
    );
    await trustProject(join(home, 'trust.json'), DEMO_PROJECT);
    out.write(`clat trust ${DEMO_PROJECT}\n`);

    const project = await openProject(io, {});
    const { session } = project;
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
      out.write(formatMcpStatus(summary, { configIssues: project.configIssues }));
      section(out, '/tools');
      out.write(formatTools(session.registry.list()));

      section(out, 'scripted session (mode project-write)');
      const approver: Approver = {
        approve: async (request: ApprovalRequest) => {
          out.write(`${indent(describeApproval(request))}    > n (scripted answer)\n`);
          return { outcome: 'deny', reason: 'the scripted demo user said no' };
        },
      };
      const run = await session.beginRun({ mode: 'project-write', approver });
      let calls = 0;
      try {
        for (const step of SCRIPT) {
          out.write(`\n» ${step.say}\n  ${step.tool} ${JSON.stringify(step.args)}\n`);
          if (!session.registry.has(step.tool)) {
            out.write('  - skipped: this tool is not registered in this build\n');
            continue;
          }
          try {
            const result = await session.pipeline.call(step.tool, step.args, run.context);
            calls++;
            out.write(indent(result.content));
          } catch (error) {
            out.write(`    (${errorMessage(error)})\n`);
          }
        }
      } finally {
        await run.end();
      }
      section(out, 'teardown');
      await session.close();
      out.write('project scope closed: leases revoked, servers stopped\n');
      const notes = summary.servers.find((server) => server.name === 'notes');
      if (!project.composition.connectors({ env }).some((c) => c.transports.includes('stdio'))) {
        // Partial build: say so plainly instead of pretending the plugin ran.
        out.write('\nPartial demo: no MCP stdio connector is wired into this build yet.\n');
        return 0;
      }
      if (notes?.state !== 'connected' || calls === 0) {
        out.write(
          `\nDEMO FAILED: the notes plugin did not connect (${notes?.failure ?? notes?.state})\n`,
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
    await rm(home, { recursive: true, force: true });
  }
}

process.exitCode = await runDemo();
