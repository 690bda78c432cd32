/**
 * Ctrl-D at a question of the interactive session: readline takes it as the end of input and
 * closes, which ended the session and lost its conversation. Here it cancels the question, as
 * Esc does, and the line editor stays open.
 * @module
 */
import type { Interface } from 'node:readline';
import type { Readable } from 'node:stream';

/** What readline's keypress events carry about a key. */
export interface KeyInfo {
  name?: string;
  ctrl?: boolean;
}

/**
 * Makes Ctrl-D on an empty line, while `asking()` is true, call `cancel()` instead of closing
 * `rl`: the keypress is seen first (a listener put before readline's own), and the close it then
 * asks for is skipped. Any other close (end of input, `/exit`) closes. Returns the undo.
 */
export function cancelQuestionOnEndOfInput(
  rl: Interface,
  input: Readable,
  asking: () => boolean,
  cancel: () => void,
): () => void {
  const close = rl.close.bind(rl);
  let atQuestion = false;
  const onKeypress = (_text: unknown, key: KeyInfo | undefined) => {
    atQuestion = key?.ctrl === true && key.name === 'd' && asking() && rl.line === '';
  };
  input.prependListener('keypress', onKeypress);
  rl.close = () => {
    if (atQuestion) {
      atQuestion = false;
      cancel();
      return;
    }
    close();
  };
  return () => {
    input.removeListener('keypress', onKeypress);
    // The instance's own property goes: the class's close applies again.
    delete (rl as { close?: unknown }).close;
  };
}
