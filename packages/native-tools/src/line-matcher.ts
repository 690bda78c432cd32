/**
 * Line matching for `search`. Literal queries match in-thread (linear time). Regular expressions
 * run in a worker thread: a catastrophic pattern from a model or a plugin then costs one worker,
 * which cancellation or the per-file budget terminates, never the host's event loop.
 * @module
 */
import type { Worker } from 'node:worker_threads';
import { cancelledError } from '@clat/kernel';
import { NativeToolError, NativeToolErrorCode } from './errors.js';

export interface LineMatch {
  line: number;
  text: string;
}

export interface LineMatcher {
  /** The first `max` matching lines of `text`, 1-based. */
  match(text: string, max: number): Promise<LineMatch[]>;
  close(): void;
}

/** Splits like readline: `\n`, `\r\n`; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function matchLines(regex: RegExp, text: string, max: number): LineMatch[] {
  const found: LineMatch[] = [];
  const lines = splitLines(text);
  for (let i = 0; i < lines.length && found.length < max; i++) {
    const line = lines[i] as string;
    if (regex.test(line)) found.push({ line: i + 1, text: line });
  }
  return found;
}

export function literalMatcher(regex: RegExp): LineMatcher {
  return {
    match: async (text, max) => matchLines(regex, text, max),
    close: () => {},
  };
}

// Plain CommonJS so the same worker runs from sources (tests) and from dist.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', ({ id, text, max }) => {
  const found = [];
  const lines = text.split(/\\r?\\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length && found.length < max; i++) {
    if (regex.test(lines[i])) found.push({ line: i + 1, text: lines[i] });
  }
  parentPort.postMessage({ id, found });
});
`;

/** A regex matcher in its own worker; `budgetMs` bounds the work on one file. */
export function workerMatcher(
  regex: RegExp,
  options: { signal: AbortSignal; budgetMs: number },
): LineMatcher {
  let worker: Worker | undefined;
  let nextId = 1;
  let failure: Error | undefined;
  const pending = new Map<
    number,
    { resolve: (m: LineMatch[]) => void; reject: (e: Error) => void }
  >();
  const fail = (error: Error) => {
    failure ??= error;
    for (const entry of pending.values()) entry.reject(failure);
    pending.clear();
    void worker?.terminate();
    worker = undefined;
  };
  const onAbort = () => fail(cancelledError(options.signal, 'search'));
  options.signal.addEventListener('abort', onAbort, { once: true });
  const start = (): Worker => {
    // Loaded on the first regex search: every `clat` start would otherwise load node:worker_threads.
    const { Worker: WorkerThread } = process.getBuiltinModule('node:worker_threads');
    const created = new WorkerThread(WORKER_SOURCE, {
      eval: true,
      workerData: { source: regex.source, flags: regex.flags },
    });
    created.unref();
    created.on('message', ({ id, found }: { id: number; found: LineMatch[] }) => {
      const entry = pending.get(id);
      pending.delete(id);
      entry?.resolve(found);
    });
    created.on('error', (error) => fail(error));
    created.on('exit', () => {
      if (worker === created) fail(new Error('the search worker exited'));
    });
    return created;
  };
  return {
    match(text, max) {
      if (options.signal.aborted) return Promise.reject(cancelledError(options.signal, 'search'));
      if (failure !== undefined) return Promise.reject(failure);
      worker ??= start();
      const id = nextId++;
      const active = worker;
      return new Promise<LineMatch[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          fail(
            new NativeToolError(
              NativeToolErrorCode.NATIVE_SEARCH_TOO_SLOW,
              `search: the regular expression ran over ${options.budgetMs} ms on one file; simplify it (avoid nested quantifiers) or use mode "literal"`,
            ),
          );
        }, options.budgetMs);
        pending.set(id, {
          resolve: (found) => {
            clearTimeout(timer);
            resolve(found);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        active.postMessage({ id, text, max });
      });
    },
    close() {
      options.signal.removeEventListener('abort', onAbort);
      const current = worker;
      worker = undefined;
      void current?.terminate();
    },
  };
}
