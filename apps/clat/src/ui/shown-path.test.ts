import { describe, expect, it } from 'vitest';
import { shownPath } from './shown-path.js';

describe('shownPath', () => {
  it('shows a plain path as it is and one with controls JSON-quoted on one line', () => {
    expect(shownPath('/home/u/my project')).toBe('/home/u/my project');
    expect(shownPath('/tmp/nl\n/root/secret')).toBe('"/tmp/nl\\n/root/secret"');
    expect(shownPath('/tmp/a\tb')).toBe('"/tmp/a\\tb"');
    expect(shownPath('/tmp/\u202etxt\u001b[2J')).toBe('"/tmp/\\u202etxt\\u001b[2J"');
  });
});
