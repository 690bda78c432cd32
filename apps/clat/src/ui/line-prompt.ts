/** One-line questions on a TTY (trust and approval prompts outside the REPL). @module */
import { createInterface, type Interface } from 'node:readline/promises';
import { type Readable, Writable } from 'node:stream';

export function isTty(stream: Readable | Writable): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/**
 * Whether a status line may be redrawn in place on `stream` (`\r`, erase-line, a spinner): a
 * terminal that is not `TERM=dumb`, which has no cursor control (Emacs' shell, some CI
 * terminals); there each update is a line of its own, or none.
 */
export function redrawsInPlace(stream: Readable | Writable, env = process.env): boolean {
  return isTty(stream) && env.TERM !== 'dumb';
}

/** Asks one question; resolves the trimmed answer, or '' when input ends or `signal` aborts. */
export async function askLine(
  input: Readable,
  output: Writable,
  question: string,
  signal?: AbortSignal,
): Promise<string> {
  return (await askLineOrEnd(input, output, question, signal)) ?? '';
}

/**
 * As {@link askLine}, but undefined when no answer was given (Ctrl-C, Ctrl-D, end of input, the
 * abort), so a question can be cancelled rather than answered with '' (which takes a default or
 * declines); `onInterrupt` runs when it was Ctrl-C, which a terminal's readline takes for itself
 * (no SIGINT reaches the process).
 */
export async function askLineOrEnd(
  input: Readable,
  output: Writable,
  question: string,
  signal?: AbortSignal,
  onInterrupt?: () => void,
): Promise<string | undefined> {
  const terminal = isTty(input);
  const { text, ended, interrupted } = await answerOnce(
    createInterface({ input, output, terminal }),
    question,
    signal,
  );
  // Ctrl-C or Ctrl-D leaves the cursor after the question: what is said next (the refusal) starts
  // on a line of its own, not after "[y/N] ".
  if (ended && terminal) output.write('\n');
  if (interrupted) onInterrupt?.();
  return ended ? undefined : text;
}

/**
 * One question on `rl`, then closes it; '' when input ends or `signal` aborts, with `ended` set
 * when no answer was given (Ctrl-C, Ctrl-D, end of input, the abort) and `interrupted` when it
 * was Ctrl-C.
 */
async function answerOnce(
  rl: Interface,
  question: string,
  signal?: AbortSignal,
): Promise<{ text: string; ended: boolean; interrupted: boolean }> {
  let interrupted = false;
  // Without a listener, readline pauses on Ctrl-C and the question stays open.
  rl.once('SIGINT', () => {
    interrupted = true;
    rl.close();
  });
  try {
    const closed = new Promise<undefined>((resolve) => rl.once('close', () => resolve(undefined)));
    const answer = rl.question(question, signal === undefined ? {} : { signal });
    const text = await Promise.race([answer, closed]);
    return text === undefined
      ? { text: '', ended: true, interrupted }
      : { text: text.trim(), ended: false, interrupted };
  } catch {
    return { text: '', ended: true, interrupted };
  } finally {
    rl.close();
  }
}

/**
 * Asks for a secret: on a terminal the typed characters are not echoed (readline writes its echo
 * to a sink while the question and the final newline go to `output`), so an API key never sits in
 * the scrollback or a screen share. Off a terminal it reads a plain line, like `askLine`.
 */
export async function askSecretLine(
  input: Readable,
  output: Writable,
  question: string,
  signal?: AbortSignal,
): Promise<string> {
  if (!isTty(input)) return askLine(input, output, question, signal);
  output.write(question);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  try {
    return (await answerOnce(createInterface({ input, output: sink, terminal: true }), '', signal))
      .text;
  } finally {
    output.write('\n');
  }
}

export function isYes(answer: string): boolean {
  return /^(y|yes)$/i.test(answer);
}
