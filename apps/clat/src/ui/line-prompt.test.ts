import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { redrawsInPlace } from './line-prompt.js';

describe('redrawsInPlace', () => {
  const terminal = () => Object.assign(new PassThrough(), { isTTY: true });

  it('is true on a terminal with cursor control, false under TERM=dumb and off a terminal', () => {
    expect(redrawsInPlace(terminal(), { TERM: 'xterm-256color' })).toBe(true);
    expect(redrawsInPlace(terminal(), {})).toBe(true);
    // Emacs' shell and some CI terminals: no `\r` redraw, no erase-line, no spinner.
    expect(redrawsInPlace(terminal(), { TERM: 'dumb' })).toBe(false);
    expect(redrawsInPlace(new PassThrough(), { TERM: 'xterm' })).toBe(false);
  });
});
