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
  PERMISSION_MODES,
  type PermissionMode,
  sanitizeTerminalText,
} from '@clat/kernel';
import {
  type ChatMessage,
  createOpenAiCompatibleProvider,
  type OpenAiCompatibleProvider,
} from '@clat/provider-openai';
import { PROMPT_COMMAND_PREFIX, SessionCatalog } from '../catalog/session-catalog.js';
import { MODE_OPTION, PROJECT_OPTIONS, parseFlags, parseMode, runMode } from '../cli-options.js';
import type { Command, CommandIO } from '../command.js';
import { CliError, CliErrorCode } from '../errors.js';
import { waitForGetStreams } from '../project/get-streams.js';
import type { OpenedProject } from '../project/open-project.js';
import type { ProjectFlagsShown } from '../project/project-command.js';
import { withProject } from '../project/with-project.js';
import { statusLine } from '../ui/columns.js';
import { didYouMean } from '../ui/did-you-mean.js';
import { isTty } from '../ui/line-prompt.js';
import { formatMcpStatus, summaryLine } from '../ui/mcp-status.js';
import { cancelQuestionOnEndOfInput, type KeyInfo } from '../ui/question-eof.js';
import { type CompletionSources, sessionCompleter } from '../ui/session-completer.js';
import { shownPath } from '../ui/shown-path.js';
import { formatToolProgress, progressLineGate } from '../ui/tool-progress.js';
import { createLineApprover, createLineAsker, type LineAsk } from '../ui/tty-approver.js';
import { type CallContext, sessionCall } from './chat-call.js';
import { type LoginContext, sessionLogin } from './chat-login.js';
import { type PromptContext, promptTurn } from './chat-prompt.js';
import { sessionTools, type ToolsContext } from './chat-tools.js';
import { HELP, SESSION_COMMANDS, USAGE } from './chat-usage.js';

/** The session's prompt; none while a line runs (see #pump). */
const PROMPT = 'clat> ';

class ChatSession {
  readonly #io: CommandIO;
  readonly #project: OpenedProject;
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
  /** The terminal went away (its window was closed): nothing more is written. */
  #terminalLost = false;
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
  /** What the handlers in chat-*.ts (`/call`, `/login`, `/tools`, a model turn) use of it. */
  readonly #context: CallContext & LoginContext & PromptContext & ToolsContext;

  constructor(
    io: CommandIO,
    project: OpenedProject,
    mode: PermissionMode,
    flags: ProjectFlagsShown,
  ) {
    this.#io = io;
    this.#project = project;
    this.#mode = mode;
    this.#catalog = new SessionCatalog(project.session.mount);
    this.#provider =
      project.user.provider === undefined
        ? undefined
        : createOpenAiCompatibleProvider(project.user.provider);
    const completion: CompletionSources = {
      commands: SESSION_COMMANDS,
      promptCommands: () => this.#catalog.completionCommands(),
      tools: () => project.session.registry.list().map((tool) => tool.name),
      servers: () => project.session.mount.summary().servers.map((server) => server.name),
      modes: PERMISSION_MODES,
    };
    this.#rl = createInterface({
      input: io.stdin,
      output: io.stdout,
      terminal: isTty(io.stdin),
      prompt: PROMPT,
      // Tab completes commands, prompts' slash commands, and the tool, server or mode they take.
      completer: sessionCompleter(completion),
    });
    if (isTty(io.stdin)) {
      this.#undoEndOfInput = cancelQuestionOnEndOfInput(
        this.#rl,
        io.stdin,
        () => this.#question !== undefined,
        () => this.#question?.abort(),
      );
    }
    const endOfInput = () => {
      if (this.#closed) return;
      this.#closed = true;
      this.#question?.abort();
      const waiter = this.#lineWaiter;
      this.#lineWaiter = undefined;
      waiter?.(undefined);
    };
    this.#rl.once('close', endOfInput);
    // The terminal went away (its window closed: setRawMode fails with EIO as readline closes).
    // Unhandled, that error crashed the session past its teardown, and a server's daemon
    // outlived it; it is the end of input, and the project closes as after Ctrl-D.
    // Nothing more is written to it: a write would fail too (EIO), and the bin's output-error
    // handler would exit at once, before the servers are closed.
    this.#rl.on('error', () => {
      this.#terminalLost = true;
      endOfInput();
      this.#pump();
    });
    this.#context = {
      io,
      project,
      flags,
      provider: this.#provider,
      catalog: this.#catalog,
      history: this.#history,
      write: (text) => this.#write(text),
      withRun: (body) => this.#withRun(body),
      setWaiting: (controller) => {
        this.#waiting = controller;
      },
    };
  }

  /** The session's one output path: servers, packages and the model write into it, so sanitised. */
  #write(text: string): void {
    if (!this.#terminalLost) this.#io.stdout.write(sanitizeTerminalText(text));
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
      await promptTurn(this.#context, text);
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
      case '/tools':
        sessionTools(this.#context, operand);
        return true;
      case '/call':
        await sessionCall(this.#context, rest);
        return true;
      case '/login':
        await sessionLogin(this.#context, rest.trim());
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
          await promptTurn(this.#context, text, { name: command.slice(1), rest });
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
    this.#write(
      `clat — project ${shownPath(session.projectRoot)} (mode ${this.#mode}); /help for commands\n`,
    );
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
    if (isTty(this.#io.stdin) && !this.#stopped && !this.#terminalLost) this.#io.stdout.write('\n');
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
