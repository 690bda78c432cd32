/**
 * Drives an interactive `clat` inside a detached tmux session: literal keystrokes in, the
 * rendered pane out. `waitFor` polls the pane with a generous hang-guard deadline.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { CLAT_BIN } from './support.js';

export function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export class TmuxSession {
  readonly name: string;

  constructor(name: string) {
    this.name = name;
  }

  /** Starts `argv` in `cwd` with `env`; when it exits the pane prints `EXITED:<code>` and stays. */
  start(argv: string[], cwd: string, env: Record<string, string>): void {
    const assignments = Object.entries(env).map(([key, value]) => `${key}=${shellQuote(value)}`);
    const command = `cd ${shellQuote(cwd)} && env ${assignments.join(' ')} ${argv.map(shellQuote).join(' ')}; echo EXITED:$?; sleep 600`;
    execFileSync('tmux', ['new-session', '-d', '-s', this.name, '-x', '200', '-y', '60', command]);
  }

  /** Starts `clat --trust` in a sandbox's project with its CLAT home and plain (NO_COLOR) output. */
  startClat(sandbox: { readonly home: string; readonly project: string }): void {
    this.start([process.execPath, CLAT_BIN, '--trust'], sandbox.project, {
      CLAT_HOME: sandbox.home,
      NO_COLOR: '1',
    });
  }

  /** Types text literally (no key-name interpretation), then Enter. */
  line(text: string): void {
    execFileSync('tmux', ['send-keys', '-t', this.name, '-l', text]);
    execFileSync('tmux', ['send-keys', '-t', this.name, 'Enter']);
  }

  /** Types text literally, without Enter. */
  type(text: string): void {
    execFileSync('tmux', ['send-keys', '-t', this.name, '-l', text]);
  }

  key(name: string): void {
    execFileSync('tmux', ['send-keys', '-t', this.name, name]);
  }

  /** The pane with its history; trailing blank rows trimmed so lengths work as marks. */
  capture(): string {
    return execFileSync('tmux', ['capture-pane', '-p', '-J', '-S', '-2000', '-t', this.name], {
      encoding: 'utf8',
    }).trimEnd();
  }

  /** Resolves the pane text once `pattern` matches after `from` characters of earlier output. */
  async waitFor(pattern: RegExp | string, from = 0, deadlineMs = 30_000): Promise<string> {
    const end = Date.now() + deadlineMs;
    for (;;) {
      const text = this.capture();
      const tail = text.slice(from);
      if (typeof pattern === 'string' ? tail.includes(pattern) : pattern.test(tail)) return text;
      if (Date.now() > end) {
        throw new Error(`tmux pane never showed ${String(pattern)}; pane:\n${text}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  kill(): void {
    try {
      execFileSync('tmux', ['kill-session', '-t', this.name], { stdio: 'ignore' });
    } catch {
      // Already gone.
    }
  }
}
