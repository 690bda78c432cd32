/** One-line questions on a TTY (trust and approval prompts outside the REPL). @module */
import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';

export function isTty(stream: Readable | Writable): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** Asks one question; resolves the trimmed answer, or '' when input ends or `signal` aborts. */
export async function askLine(
  input: Readable,
  output: Writable,
  question: string,
  signal?: AbortSignal,
): Promise<string> {
  const rl = createInterface({ input, output, terminal: isTty(input) });
  try {
    const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
    const answer = rl.question(question, signal === undefined ? {} : { signal });
    return (await Promise.race([answer, closed])).trim();
  } catch {
    return '';
  } finally {
    rl.close();
  }
}

export function isYes(answer: string): boolean {
  return /^(y|yes)$/i.test(answer);
}
