import { describe, expect, it } from 'vitest';
import { prestartPlan } from './prestart-plan.js';

describe('prestartPlan', () => {
  it('prestarts `clat tools` with its project flags', () => {
    expect(prestartPlan(['tools'])).toEqual({ project: undefined, trust: undefined });
    expect(prestartPlan(['tools', '-C', 'dir', '--trust', '--json'])).toEqual({
      project: 'dir',
      trust: true,
    });
  });

  it('prestarts nothing for a run that selects servers, asks for help or has a bad flag', () => {
    expect(prestartPlan(['tools', 'notes'])).toBeUndefined();
    expect(prestartPlan(['tools', '--help'])).toBeUndefined();
    expect(prestartPlan(['tools', '-h'])).toBeUndefined();
    expect(prestartPlan(['tools', '--no-such-flag'])).toBeUndefined();
  });

  it('prestarts nothing for other commands, no command, or a name from the prototype', () => {
    expect(prestartPlan([])).toBeUndefined();
    expect(prestartPlan(['call', 'mcp_notes_add'])).toBeUndefined();
    expect(prestartPlan(['--version'])).toBeUndefined();
    expect(prestartPlan(['constructor'])).toBeUndefined();
    expect(prestartPlan(['toString'])).toBeUndefined();
  });
});
