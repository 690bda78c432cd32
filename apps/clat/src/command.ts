/** The shape of one `clat` subcommand. Each lives in src/commands/<name>.ts. @module */
import type { Readable, Writable } from 'node:stream';
import type { PrestartedServers } from '@clat/adapter-mcp-stdio/prestart';

export interface CommandIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Stdio servers main() spawned for this command before loading it (a catalog entry's
   * `prestart`); withProject hands them to the stdio transport, and main() closes what no
   * transport adopted once the command returns (it owns the set).
   */
  prestarted?: PrestartedServers | undefined;
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
