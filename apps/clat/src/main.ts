/** `clat` entry: dispatches to subcommands; the bin shim calls main(). @module */
// Only what `--version` needs and the command catalog (names and loaders, a few lines) are
// imported eagerly, and then only the command that runs: the commands pull in adapters (WASM
// host, MCP transports, the plugin store), which would multiply the CLI's cold start.
import type { CommandIO } from './command.js';
import { COMMAND_CATALOG, type CommandEntry } from './commands/catalog.js';
import { CLAT_VERSION } from './version.js';

function isTtyStream(stream: unknown): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** Reports a failure: one line (no stack) mapped to an exit code. */
async function reportFailure(error: unknown, io: CommandIO): Promise<number> {
  // Loaded only on failure: the command alone decides what a successful run evaluates.
  const [{ isClatError }, { isCliError }, { errorLine, fileErrorText, unexpectedErrorLine }] =
    await Promise.all([import('@clat/kernel'), import('./errors.js'), import('./error-line.js')]);
  // Any package's ClatError is an expected failure: one line with its code (sanitised there).
  if (isClatError(error)) {
    io.stderr.write(errorLine(error));
    return isCliError(error) ? error.exitCode : 1;
  }
  // A file operation the system refused (read-only home, full disk): what, which file, why.
  const refused = fileErrorText(error);
  if (refused !== undefined) {
    io.stderr.write(`clat: ${refused}\n`);
    return 1;
  }
  // Anything else is a bug: one redacted line, the stack only on request.
  io.stderr.write(unexpectedErrorLine(error, io.env));
  return 1;
}

function helpText(commands: readonly CommandEntry[]): string {
  const width = Math.max(8, ...commands.map((command) => command.name.length)) + 2;
  const lines = [
    `clat ${CLAT_VERSION} — CLAT plugin host`,
    '',
    'Usage: clat <command> [options]',
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}${command.summary}`),
    '',
    'Options:',
    `  ${'--help'.padEnd(width)}Show help (also: clat <command> --help)`,
    `  ${'--version'.padEnd(width)}Print the version`,
  ];
  return `${lines.join('\n')}\n`;
}

export async function main(argv: string[], io?: Partial<CommandIO>): Promise<number> {
  const full: CommandIO = {
    // Read on first use: process.stdin builds a stream over fd 0 (a socket or TTY handle), which
    // commands that never read it, like `clat tools`, should not pay for at startup.
    get stdin() {
      return io?.stdin ?? process.stdin;
    },
    stdout: io?.stdout ?? process.stdout,
    stderr: io?.stderr ?? process.stderr,
    env: io?.env ?? process.env,
    cwd: io?.cwd ?? process.cwd(),
    // Stdio servers the bin's boot bundle spawned for this run (bin-boot.ts); main() owns the
    // set from here on and closes what no transport adopted.
    prestarted: io?.prestarted,
  };
  try {
    return await dispatch(argv, full);
  } catch (error) {
    // Every failure, a command's or a bug here, is reported the one way: main() never throws.
    return await reportFailure(error, full);
  } finally {
    // The one owner of the prestarted set: what no transport adopted (the project failed to
    // open, an entry changed on the way, the command never mounted) is torn down here.
    await full.prestarted?.close();
  }
}

async function dispatch(argv: string[], full: CommandIO): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-V' || first === 'version') {
    if (rest.length > 0) {
      full.stderr.write(
        `clat: clat ${first} takes no arguments; run "clat ${first}" alone [CLI_USAGE]\n`,
      );
      return 2;
    }
    full.stdout.write(`${CLAT_VERSION}\n`);
    return 0;
  }
  // On a terminal, bare `clat` (or only session flags) is the interactive session.
  const sessionFlag =
    first?.startsWith('-') === true && !['--help', '-h', '--version', '-V'].includes(first);
  if ((first === undefined || sessionFlag) && isTtyStream(full.stdin)) {
    const chat = COMMAND_CATALOG.find((candidate) => candidate.name === 'chat');
    if (chat !== undefined) return (await chat.load()).run(argv, full);
  }
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? rest[0] : undefined;
    const entry = COMMAND_CATALOG.find((candidate) => candidate.name === topic);
    if (topic !== undefined && entry === undefined) {
      const meant = (await import('./ui/did-you-mean.js')).didYouMean(
        topic,
        COMMAND_CATALOG.map((candidate) => candidate.name),
      );
      full.stderr.write(
        `clat: no command ${JSON.stringify(topic)} to help with${meant}; run "clat --help" for the list [CLI_USAGE]\n`,
      );
      return 2;
    }
    full.stdout.write(
      entry ? `${(await entry.load()).usage.trimEnd()}\n` : helpText(COMMAND_CATALOG),
    );
    return 0;
  }
  const entry = COMMAND_CATALOG.find((candidate) => candidate.name === first);
  if (entry === undefined) {
    // `clat --mode read-only` from a script: a session flag where no terminal runs the session.
    if (/^(-C|--project|--trust|--mode)(=|$)/.test(first)) {
      full.stderr.write(
        `clat: ${first.split('=')[0]} is an option of the interactive session, which needs a terminal (stdin is not one); without one, "clat chat ${first.split('=')[0]} …" reads its lines from stdin and "clat exec ${first.split('=')[0]} … <prompt>" runs one prompt [CLI_USAGE]\n`,
      );
      return 2;
    }
    const what = first.startsWith('-') ? 'option' : 'command';
    const instead = (await import('./foreign-commands.js')).foreignCommand('clat', first);
    if (instead !== undefined) {
      full.stderr.write(`clat: clat ${first}: ${instead} [CLI_USAGE]\n`);
      return 2;
    }
    // Loaded only here: a start that finds its command never reads it.
    const meant = first.startsWith('-')
      ? ''
      : (await import('./ui/did-you-mean.js')).didYouMean(
          first,
          COMMAND_CATALOG.map((candidate) => candidate.name),
        );
    full.stderr.write(
      `clat: unknown ${what} ${JSON.stringify(first)}${meant}; run "clat --help" for the list [CLI_USAGE]\n`,
    );
    return 2;
  }
  const command = await entry.load();
  // After `--` every word is an operand (`clat mcp add pg -- postgres-mcp -h localhost`).
  const separator = rest.indexOf('--');
  const options = separator === -1 ? rest : rest.slice(0, separator);
  if (options.includes('--help') || options.includes('-h')) {
    full.stdout.write(`${command.usage.trimEnd()}\n`);
    return 0;
  }
  return command.run(rest, full);
}
