import { describe, expect, it } from 'vitest';
import { loginWords } from './chat-login.js';

describe('loginWords', () => {
  it('takes the rest of the line as the name, spaces and a leading dash included', () => {
    expect(loginWords('  team docs ')).toEqual({ name: 'team docs', scopes: undefined });
    expect(loginWords('-odd')).toEqual({ name: '-odd', scopes: undefined });
    // A word that only starts like the flag is part of the name.
    expect(loginWords('docs --scopesish')).toEqual({ name: 'docs --scopesish', scopes: undefined });
  });

  it('splits at a --scopes word, whose value is the rest of the line', () => {
    expect(loginWords('team docs --scopes mcp:read, mcp:admin')).toEqual({
      name: 'team docs',
      scopes: 'mcp:read, mcp:admin',
    });
    expect(loginWords('docs --scopes=read')).toEqual({ name: 'docs', scopes: 'read' });
    // No value: the login refuses it, naming the flag.
    expect(loginWords('docs --scopes')).toEqual({ name: 'docs', scopes: '' });
    expect(loginWords('--scopes read')).toEqual({ name: '', scopes: 'read' });
  });
});
