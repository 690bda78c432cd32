/**
 * The interactive session (`clat` on a terminal): servers connect in the background while the
 * prompt is already usable; `/mcp`, `/tools`, `/call`, approval prompts, `ask_user` questions,
 * and Esc cancelling the running tool call or model turn.
 * @module
 */
import { createInterface, emitKeypressEvents, type Interface } from 'node:readline';
import {
  errorMessage,
  type HostRun,
  isKernelError,
  KernelErrorCode,
  sanitizeTerminalLine as oneLine,
  type PermissionMode,
  sanitizeTerminalText,
} from '@clat/kernel';
import {
  type ChatMessage,
  createOpenAiCompatibleProvider,
  type OpenAiCompatibleProvider,
} from '@clat/provider-openai';
import { splitWords } from '../catalog/prompt-arguments.js';
import { PROMPT_COMMAND_PREFIX, SessionCatalog } from '../catalog/session-catalog.js';
import {
  MODE_OPTION,
  MODE_USAGE,
  PROJECT_OPTIONS,
  PROJECT_USAGE,
  parseFlags,
  parseMode,
  runMode,
} from '../cli-options.js';
import type { Command, CommandIO } from '../command.js';
import { CliError, CliErrorCode } from '../errors.js';
import { waitForGetStreams } from '../project/get-streams.js';
import type { OpenedProject } from '../project/open-project.js';
import { type ProjectFlagsShown, projectCommand } from '../project/project-command.js';
import { withProject } from '../project/with-project.js';
import { runAgentTurn } from '../run/agent-loop.js';
import { parseKeyValueArguments } from '../run/call-arguments.js';
import { exhaustedLine, toolCallLine, toolResultLine } from '../ui/agent-lines.js';
import { detailsWidth, statusLine, terminalColumns } from '../ui/columns.js';
import { didYouMean, didYouMeanTool } from '../ui/did-you-mean.js';
import { foldResult } from '../ui/fold-result.js';
import { isTty } from '../ui/line-prompt.js';
import { formatMcpStatus, summaryLine } from '../ui/mcp-status.js';
import { cancelQuestionOnEndOfInput, type KeyInfo } from '../ui/question-eof.js';
import { formatTools, inSurfaceOrder } from '../ui/tool-list.js';
import { formatToolProgress, progressLineGate } from '../ui/tool-progress.js';
import { formatToolDetails } from '../ui/tool-signature.js';
import { createLineApprover, createLineAsker, type LineAsk } from '../ui/tty-approver.js';

const USAGE = `Usage: clat [chat] [--mode <mode>]

Interactive session in the current (trusted) project. MCP servers connect in the background;
the first tool call or prompt waits for them (at most the initial-surface limit), then the tool
registry freezes for the session.

Commands inside the session:
  /mcp                 MCP server status (counts, versions, tools, failures)
  /tools [name]        Registered tools; with a tool or server name, signatures and details
  /call <tool> [args]  Call one tool through the permission pipeline; args: one JSON
                       object, or key=value pairs typed by its schema (text="a b" limit=5)
  /prompts             Server prompts as slash commands: /mcp__<server>__<prompt> [args]
                       (args: key=value, or values in the prompt's argument order)
  /resources [server]  Server resources and templates
  @<server>:<uri>      In a message: attach that resource to it (text as text, binary as a
                       placeholder; at most the 1 MiB result limit per message)
  /mode [mode]         Show or set the permission mode
  /login <server> [--scopes a,b]
                       OAuth login to an HTTP server; its tools join before the first run
                       (--scopes: ask for exactly these scopes, as clat mcp login does)
  /help, /exit (or /quit)
  anything else        A prompt for the configured model (~/.clat/config.json)
Esc or Ctrl-C cancels the running tool call or model turn (or the first call's wait for
servers); Esc or Ctrl-D at a question cancels the question. Ctrl-C at the prompt clears the
line; on an empty line, and Ctrl-D, end the session.

Options:
${PROJECT_USAGE}
${MODE_USAGE}
`;

/** How `/login` takes a server and, as `clat mcp login` does, the scopes to ask for. */
const LOGIN_USAGE = '/login <server> [--scopes a,b]';

/**
 * `/login`'s line: the server's name as typed, and the value of a `--scopes` word (the rest of
 * the line, commas or spaces between scopes; `--scopes=a,b` too) when there is one.
 */
export function loginWords(line: string): { name: string; scopes: string | undefined } {
  const flag = /(?:^|\s)--scopes(?:=|\s+|$)/.exec(line);
  if (flag === null) return { name: line.trim(), scopes: undefined };
  return {
    name: line.slice(0, flag.index).trim(),
    scopes: line.slice(flag.index + flag[0].length).trim(),
  };
}

/** How `/call` takes its arguments, as `clat call` does. */
const CALL_USAGE = "/call <tool> ['<json>' | key=value ...]";
/** The session's own commands, for "did you mean". */
const SESSION_COMMANDS = [
  '/exit',
  '/quit',
  '/help',
  '/mcp',
  '/tools',
  '/call',
  '/login',
  '/prompts',
  '/resources',
  '/mode',
];
const HELP = `/mcp  /tools [name]  /call <tool> [json | key=value ...]  /prompts  /resources [server]
/login <server> [--scopes a,b]  /mode [read-only|project-write|full-access]  /help  /exit (or /quit)
/mcp__<server>__<prompt> [args] runs a server prompt; @<server>:<uri> in a message attaches a resource.
Esc or Ctrl-C cancels the running call; Esc or Ctrl-D at a question cancels the question.
Ctrl-D at the prompt (or Ctrl-C on an empty line) ends the session.\n`;

/** The session's prompt; none while a line runs (see #pump). */
const PROMPT = 'clat> ';

class ChatSession {
  readonly #io: CommandIO;
  readonly #project: OpenedProject;
  /** The run's -C and --trust, repeated by commands the session names. */
  readonly #flags: ProjectFlagsShown;
  readonly #rl: Interface;
  readonly #provider: OpenAiCompatibleProvider | undefined;
  readonly #history: ChatMessage[] = [];
  readonly #catalog: SessionCatalog;
  #mode: PermissionMode;
  #run: HostRun | undefined;
  /** Aborts a wait that is not a run: the first run's wait for servers, a `/login`. */
  #waiting: AbortController | undefined;
  #question: AbortController | undefined;
  /** Takes Ctrl-D at a question back to ending the session (when the session ends). */
  #undoEndOfInput: (() => void) | undefined;
  #busy = false;
  #closed = false;
  /** Set once the session closes its project: nothing about servers is reported after it. */
  #ending = false;
  #stopped = false;
  /** Lines read but not run yet (typed ahead, or piped input read in one go). */
  readonly #pending: string[] = [];
  /** A question waiting for the next piped line. */
  #lineWaiter: ((line: string | undefined) => void) | undefined;
  #drained: (() => void) | undefined;
  /** Servers whose GET stream a `/mcp` already waited out (see waitForGetStreams). */
  readonly #getStreamsGaveUp = new Set<string>();

  constructor(
    io: CommandIO,
    project: OpenedProject,
    mode: PermissionMode,
    flags: ProjectFlagsShown,
  ) {
    this.#io = io;
    this.#flags = flags;
    this.#project = project;
    this.#mode = mode;
    this.#catalog = new SessionCatalog(project.session.mount);
    this.#provider =
      project.user.provider === undefined
        ? undefined
        : createOpenAiCompatibleProvider(project.user.provider);
    this.#rl = createInterface({
      input: io.stdin,
      output: io.stdout,
      terminal: isTty(io.stdin),
      prompt: PROMPT,
    });
    if (isTty(io.stdin)) {
      this.#undoEndOfInput = cancelQuestionOnEndOfInput(
        this.#rl,
        io.stdin,
        () => this.#question !== undefined,
        () => this.#question?.abort(),
      );
    }
    this.#rl.once('close', () => {
      this.#closed = true;
      this.#question?.abort();
      const waiter = this.#lineWaiter;
      this.#lineWaiter = undefined;
      waiter?.(undefined);
    });
  }

  /** The session's one output path: servers, packages and the model write into it, so sanitised. */
  #write(text: string): void {
    this.#io.stdout.write(sanitizeTerminalText(text));
  }

  /** One line from the user, or undefined when Esc, the run's cancellation or end of input. */
  readonly #ask: LineAsk = (question, signal) =>
    new Promise((resolve) => {
      const controller = new AbortController();
      this.#question = controller;
      let waiter: ((line: string | undefined) => void) | undefined;
      const finish = (answer: string | undefined) => {
        if (this.#question === controller) this.#question = undefined;
        if (waiter !== undefined && this.#lineWaiter === waiter) this.#lineWaiter = undefined;
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      const onAbort = () => controller.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      controller.signal.addEventListener('abort', () => finish(undefined), { once: true });
      if (signal.aborted) {
        controller.abort();
        return;
      }
      if (!isTty(this.#io.stdin)) {
        // Piped input: the answer is the next line of the script, already read or still coming.
        this.#write(question);
        const next = this.#pending.shift();
        if (next !== undefined) {
          this.#write(`${next}\n`);
          finish(next);
        } else if (this.#closed) controller.abort();
        else {
          waiter = (line) => finish(line);
          this.#lineWaiter = waiter;
        }
        return;
      }
      if (this.#closed) {
        controller.abort();
        return;
      }
      this.#rl.question(question, { signal: controller.signal }, (answer) => finish(answer));
    });

  async #withRun<T>(body: (run: HostRun) => Promise<T>): Promise<T | undefined> {
    const mount = this.#project.session.mount;
    if (!mount.frozen && mount.summary().connecting > 0) {
      this.#write('waiting for MCP servers to connect… (Esc cancels)\n');
    }
    // Esc or Ctrl-C while the first run waits for servers: nothing runs, nothing freezes.
    const starting = new AbortController();
    this.#waiting = starting;
    let run: HostRun;
    try {
      run = await this.#project.session.beginRun({
        mode: this.#mode,
        approver: createLineApprover(
          this.#io.stdout,
          this.#ask,
          this.#project.approvals,
          this.#mode,
        ),
        asker: createLineAsker(this.#io.stdout, this.#ask),
        ...(this.#provider === undefined ? {} : { model: this.#provider }),
        signal: starting.signal,
      });
    } catch (error) {
      if (!isKernelError(error) || error.code !== KernelErrorCode.CANCELLED) throw error;
      this.#write(`cancelled: ${error.message}; nothing ran\n`);
      return undefined;
    } finally {
      this.#waiting = undefined;
    }
    this.#run = run;
    const progressLine = progressLineGate();
    const stdout = this.#io.stdout;
    const unsubscribe = this.#project.session.events.on((event) => {
      if (event.runId !== run.context.runId) return;
      if (event.type === 'tool.started') {
        this.#write(`running ${oneLine(event.tool)}… (Esc cancels)\n`);
      } else if (event.type === 'tool.progress' && progressLine(event)) {
        // Plain lines, one row each: a line redrawn in place would fight the prompt for the
        // cursor, and a message of 300 characters took four rows.
        const text = `  … ${formatToolProgress(event)}`;
        this.#write(`${isTty(stdout) ? statusLine(text, stdout) : text}\n`);
      }
    });
    try {
      return await body(run);
    } catch (error) {
      if (isKernelError(error) && error.code === KernelErrorCode.CANCELLED) {
        this.#write(`cancelled: ${error.message}\n`);
      } else if (isKernelError(error) && error.code === KernelErrorCode.PERMISSION_DENIED) {
        // The person's own answer (n, Esc, Ctrl-D), or the mode's: no error of anything.
        this.#write(`not run: ${error.message}\n`);
      } else {
        this.#write(`error: ${errorMessage(error)}\n`);
      }
      return undefined;
    } finally {
      unsubscribe();
      this.#run = undefined;
      await run.end();
    }
  }

  /**
   * Runs `clat mcp login <name> [--scopes …]` in the session, then mounts the server again:
   * before the first run its tools join the session; after it, the registries stay frozen until
   * a restart. The rest of the line is the name, as typed (server names may hold spaces or start
   * with "-"), up to a `--scopes` word, whose value is the rest of the line.
   */
  async #login(line: string): Promise<void> {
    const { name, scopes } = loginWords(line);
    if (name === '') {
      this.#write(`usage: ${LOGIN_USAGE}\n`);
      return;
    }
    // Ctrl-C reaches the session, not the process: it cancels the login, not the session.
    const waiting = new AbortController();
    this.#waiting = waiting;
    try {
      const { login } = await import('./mcp-login.js');
      const argv = scopes === undefined ? ['--', name] : ['--scopes', scopes, '--', name];
      await login(argv, this.#io, this.#project.session.projectRoot, waiting.signal);
    } catch (error) {
      this.#write(`${errorMessage(error)}\n`);
      return;
    } finally {
      this.#waiting = undefined;
    }
    const mount = this.#project.session.mount;
    if (mount.frozen) {
      this.#write('restart clat to mount its tools (the tool list froze at the first run)\n');
      return;
    }
    const status = await mount.remount(name);
    if (status === undefined) {
      // Logged in to an entry this session did not mount (added to mcp.json since it started).
      this.#write('restart clat to mount its tools (this session did not start it)\n');
    } else if (status.state === 'connected') {
      this.#write(`${name} connected: ${status.tools} tool${status.tools === 1 ? '' : 's'}\n`);
    } else {
      const why = status.failure === undefined ? '' : `: ${status.failure}`;
      this.#write(`${name} is still not connected${why}; /mcp shows it\n`);
    }
  }

  async #call(rest: string): Promise<void> {
    const match = /^(\S+)\s*([\s\S]*)$/.exec(rest.trim());
    if (match === null) {
      this.#write(`usage: ${CALL_USAGE}\n`);
      return;
    }
    const [, name = '', text = ''] = match;
    // One JSON object as typed, or key=value pairs split as a shell would (quotes group).
    let jsonArgs: unknown;
    let argWords: string[] = [];
    if (text === '') jsonArgs = {};
    else if (/^[{[]/.test(text)) {
      try {
        jsonArgs = JSON.parse(text);
      } catch (error) {
        this.#write(`arguments are not valid JSON: ${errorMessage(error)}\n`);
        return;
      }
    } else {
      try {
        argWords = splitWords(text);
      } catch (error) {
        this.#write(`/call: ${errorMessage(error)}\n`);
        return;
      }
    }
    await this.#withRun(async (run) => {
      const registry = this.#project.session.registry;
      const tool = registry.get(name);
      if (tool === undefined) {
        // After the wait for the surface: a tool of a server still connecting is there now.
        const meant = didYouMeanTool(
          name,
          registry.list().map((entry) => entry.name),
        );
        this.#write(`tool ${JSON.stringify(name)} is not registered${meant}; /tools lists them\n`);
        return;
      }
      const args =
        jsonArgs ?? parseKeyValueArguments(argWords, tool.definition.inputSchema, '/call');
      const result = await this.#project.session.pipeline.call(name, args, run.context);
      // The run's -C and --trust too: a bare `clat call` runs in another project, or is refused.
      const shown = foldResult(
        result.content,
        `"${projectCommand(['call', name], this.#flags)}" with the same arguments`,
      );
      this.#write(`${result.isError ? 'tool error: ' : ''}${shown}\n`);
    });
  }

  /**
   * A model turn: typed text (with `@server:uri` mentions attached) or, for `command`, a server
   * prompt rendered by its slash command. Rendering and reads run inside the run, so Esc
   * cancels them too.
   */
  async #prompt(text: string, command?: { name: string; rest: string }): Promise<void> {
    const provider = this.#provider;
    const [configIssue] = this.#project.user.modelIssues;
    const noProvider =
      configIssue === undefined
        ? `no model provider configured (add "provider" to ${this.#project.home.configFile}); use /call <tool> [json | key=value ...]\n`
        : `the model cannot be used until ${this.#project.home.configFile} is fixed: ${configIssue}; /call <tool> [json | key=value ...] works meanwhile\n`;
    if (provider === undefined && command === undefined) {
      this.#write(noProvider);
      return;
    }
    await this.#withRun(async (run) => {
      const signal = run.context.signal;
      let prompt = text;
      let messages: ChatMessage[] | undefined;
      if (command !== undefined) {
        const rendered = await this.#catalog.render(command.name, command.rest, signal);
        this.#write(rendered.shown);
        messages = rendered.messages;
      } else {
        const attached = await this.#catalog.attach(text, signal);
        for (const note of attached.notes) this.#write(`${note}\n`);
        if (attached.blocks.length > 0) prompt = `${text}\n\n${attached.blocks.join('\n\n')}`;
      }
      if (provider === undefined) {
        this.#write(noProvider);
        return;
      }
      this.#write(`asking ${provider.model}… (Esc cancels)\n`);
      let streamed = false;
      // Streamed text of a step that then calls tools may end mid-line; tool lines start a new one.
      let midLine = false;
      const newLine = () => {
        if (midLine) this.#write('\n');
        midLine = false;
      };
      const result = await runAgentTurn({
        provider,
        session: this.#project.session,
        run,
        history: this.#history,
        prompt,
        ...(messages === undefined ? {} : { messages }),
        onText: (delta) => {
          streamed = true;
          this.#write(delta);
          if (delta !== '') midLine = !delta.endsWith('\n');
        },
        onToolCall: (call) => {
          newLine();
          this.#write(toolCallLine(call));
        },
        onToolResult: (call, outcome) => this.#write(toolResultLine(call, outcome)),
      });
      if (result.exhausted) {
        newLine();
        this.#write(exhaustedLine(result.steps));
      } else this.#write(streamed ? '\n' : `${result.text}\n`);
    });
  }

  /** `/prompts` and `/resources [server]`: listings, errors shown as one line. */
  async #listing(body: () => Promise<string>): Promise<void> {
    try {
      this.#write(await body());
    } catch (error) {
      this.#write(`${errorMessage(error)}\n`);
    }
  }

  async #handle(line: string): Promise<boolean> {
    const text = line.trim();
    if (text === '') return true;
    if (!text.startsWith('/')) {
      await this.#prompt(text);
      return true;
    }
    const [command = '', ...restParts] = text.split(/\s+/);
    const rest = text.slice(command.length);
    // A server name is the rest of the line: names may hold spaces (`/tools team docs`).
    const operand = rest.trim() === '' ? undefined : rest.trim();
    switch (command) {
      case '/exit':
      case '/quit':
        return false;
      case '/help':
        this.#write(HELP);
        return true;
      case '/mcp':
        // A GET stream still opening is about to show open or none (up to 2 s, once per server).
        await waitForGetStreams(this.#project.session.mount, { gaveUp: this.#getStreamsGaveUp });
        this.#write(
          formatMcpStatus(this.#project.session.mount.summary(), {
            configIssues: this.#project.configIssues,
            skippedEntries: this.#project.skippedEntries,
            notes: this.#project.sourceNotes,
            // Here the login is a session command; the mount's is for a shell.
            login: (server) => `/login ${server}`,
          }),
        );
        return true;
      case '/tools': {
        const all = inSurfaceOrder(
          this.#project.session.registry.list(),
          this.#project.session.mount.summary().servers,
        );
        if (operand !== undefined) {
          // One tool, or every tool of one server, with signatures.
          const picked = all.filter((tool) => tool.name === operand || tool.source.id === operand);
          const server = this.#project.session.mount
            .summary()
            .servers.find((entry) => entry.name === operand);
          this.#write(
            picked.length > 0
              ? formatToolDetails(picked, detailsWidth(this.#io.stdout))
              : server !== undefined
                ? `server ${JSON.stringify(operand)} has no tools (${server.state}); /mcp shows it\n`
                : `no tool or server named ${JSON.stringify(operand)}${didYouMean(operand, [
                    ...all.map((tool) => tool.name),
                    ...this.#project.session.mount.summary().servers.map((entry) => entry.name),
                  ])}; /tools lists them\n`,
          );
          return true;
        }
        this.#write(formatTools(all, terminalColumns(this.#io.stdout)));
        if (this.#project.session.mount.summary().connecting > 0) {
          this.#write('(servers are still connecting; the list freezes at the first run)\n');
        }
        return true;
      }
      case '/call':
        await this.#call(rest);
        return true;
      case '/login':
        await this.#login(rest.trim());
        return true;
      case '/prompts':
        await this.#listing(() => this.#catalog.promptsText());
        return true;
      case '/resources':
        await this.#listing(() => this.#catalog.resourcesText(operand));
        return true;
      case '/mode':
        if (restParts[0] !== undefined) {
          try {
            this.#mode = parseMode(restParts[0], this.#mode, '/mode');
          } catch (error) {
            this.#write(`${errorMessage(error)}\n`);
            return true;
          }
        }
        this.#write(`mode: ${this.#mode}\n`);
        return true;
      default:
        if (command.startsWith(`/${PROMPT_COMMAND_PREFIX}`)) {
          await this.#prompt(text, { name: command.slice(1), rest });
          return true;
        }
        if (command === '/model') {
          // Other clients pick the model here; "did you mean /mode" would name something else.
          this.#write(
            `/model: the model is the provider's "model" in ${this.#project.home.configFile} (restart clat after changing it); /mode is the permission mode\n`,
          );
          return true;
        }
        this.#write(
          `unknown command ${oneLine(command)}${didYouMean(command, SESSION_COMMANDS)}; /help lists the commands\n`,
        );
        return true;
    }
  }

  #onKeypress = (_text: string | undefined, key: KeyInfo | undefined): void => {
    if (key?.name !== 'escape') return;
    if (this.#question !== undefined) {
      this.#question.abort();
      return;
    }
    if (this.#cancel('cancelled by Esc')) this.#write('\n^ Esc: cancelling…\n');
  };

  /** Cancels the running call or turn, or the wait before it; false when nothing runs. */
  #cancel(reason: string): boolean {
    if (this.#run !== undefined) this.#run.token.cancel(reason);
    else if (this.#waiting !== undefined) this.#waiting.abort(reason);
    else return false;
    return true;
  }

  /**
   * Ctrl-C: cancels what runs; at the prompt it clears a typed line (as a shell does) and ends
   * the session on an empty one. Also the process's SIGINT: once Ctrl-D closed the line editor
   * while a call still runs, the terminal sends Ctrl-C as a signal, which must still cancel it.
   */
  #onInterrupt = (): void => {
    if (this.#cancel('cancelled by Ctrl-C')) return;
    if (!this.#closed && this.#rl.line !== '') {
      // The typed line stays on screen with ^C after it; a fresh prompt starts below.
      this.#io.stdout.write('^C\n');
      const editor = this.#rl as { line: string; cursor: number };
      editor.line = '';
      editor.cursor = 0;
      this.#rl.prompt();
      return;
    }
    this.#rl.close();
  };

  /** Runs the next pending line unless one is running; resolves run() once input is done. */
  #pump(): void {
    if (this.#busy) return;
    const line = this.#stopped ? undefined : this.#pending.shift();
    if (line === undefined) {
      if (this.#closed || this.#stopped) this.#drained?.();
      else {
        // The cursor stays where it is in a line typed ahead while the last one ran: reset to
        // the start, what was typed next got inserted before it ("hello" became "heoll").
        this.#rl.setPrompt(PROMPT);
        this.#rl.prompt(true);
      }
      return;
    }
    this.#busy = true;
    // No prompt while the line runs: readline redraws it on a resize, into the line's output.
    this.#rl.setPrompt('');
    this.#handle(line)
      .then((keepGoing) => {
        if (!keepGoing) {
          this.#stopped = true;
          this.#rl.close();
        }
      })
      .catch((error: unknown) => {
        this.#write(`error: ${errorMessage(error)}\n`);
      })
      .finally(() => {
        this.#busy = false;
        this.#pump();
      });
  }

  async run(): Promise<number> {
    const { session } = this.#project;
    this.#write(`clat — project ${session.projectRoot} (mode ${this.#mode}); /help for commands\n`);
    void session.mount.start().then(() => {
      // Ended while servers still connected (input closed, /exit): closing stopped them, so a
      // summary now would call healthy servers failed.
      if (this.#ending) return;
      this.#write(`\n${summaryLine(session.mount.summary())}\n`);
      for (const server of session.mount.summary().servers) {
        if (server.state === 'needs-login')
          this.#write(`${server.name} needs login: type /login ${server.name} to log in now\n`);
      }
      if (!this.#busy && !this.#closed && this.#pending.length === 0) this.#rl.prompt(true);
    });
    if (isTty(this.#io.stdin)) {
      emitKeypressEvents(this.#io.stdin);
      this.#io.stdin.on('keypress', this.#onKeypress);
    }
    this.#rl.on('SIGINT', this.#onInterrupt);
    process.on('SIGINT', this.#onInterrupt);
    this.#rl.prompt();
    // Lines run one at a time in arrival order (typed ahead or piped); /exit drops the rest.
    try {
      this.#rl.on('line', (line) => {
        const waiter = this.#lineWaiter;
        if (waiter !== undefined) {
          this.#lineWaiter = undefined;
          waiter(line);
          return;
        }
        this.#pending.push(line);
        this.#pump();
      });
      await new Promise<void>((resolve) => {
        this.#drained = resolve;
        this.#rl.once('close', () => this.#pump());
      });
    } finally {
      this.#io.stdin.removeListener('keypress', this.#onKeypress);
      this.#undoEndOfInput?.();
      process.removeListener('SIGINT', this.#onInterrupt);
      this.#run?.token.cancel('session closed');
    }
    // Ctrl-D or Ctrl-C at the prompt leaves the cursor after it; /exit ended its own line.
    if (isTty(this.#io.stdin) && !this.#stopped) this.#io.stdout.write('\n');
    this.#ending = true;
    this.#write('closing the project…\n');
    return 0;
  }
}

export const chatCommand: Command = {
  name: 'chat',
  summary: 'Interactive session (the default when clat runs on a terminal)',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags('chat', argv, {
      ...PROJECT_OPTIONS,
      ...MODE_OPTION,
    });
    if (positionals.length > 0) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `clat chat: unexpected argument ${JSON.stringify(positionals[0])}`,
      );
    }
    return withProject(
      io,
      // A config.json problem (a provider field a newer CLAT wrote, a key not exported here) is
      // said, and the session goes on for /call, /tools and /mcp; only a model turn refuses.
      { project: values.project, trust: values.trust, promptForTrust: true, modelOptional: true },
      async (project) => {
        const mode = runMode(values.mode, project.user, (line) => io.stderr.write(line), {
          runs: 'the session starts',
          choose: '/mode or --mode chooses',
        });
        return new ChatSession(io, project, mode, {
          project: values.project,
          trust: values.trust,
        }).run();
      },
    );
  },
};
