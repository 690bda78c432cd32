/** The shape of one `clat` subcommand. Each lives in src/commands/<name>.ts. @module */
import type { Readable, Writable } from 'node:stream';

export interface CommandIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface Command {
  name: string;
  /** One line for `clat --help`. */
  summary: string;
  /** Full usage text for `clat <name> --help`. */
  usage: string;
  /** Returns the process exit code. */
  run(argv: string[], io: CommandIO): Promise<number>;
}
