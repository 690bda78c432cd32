import { LIMITS } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { parseGatewayArgs } from './cli-args.js';

describe('parseGatewayArgs', () => {
  it('reads --wait in whole seconds, defaulting to the kernel wait', () => {
    expect(parseGatewayArgs(['--project', '.']).waitMs).toBe(LIMITS.initialSurfaceWaitMs);
    expect(parseGatewayArgs(['--project', '.', '--wait', '0']).waitMs).toBe(0);
    expect(parseGatewayArgs(['--project', '.', '--wait=5']).waitMs).toBe(5000);
  });

  it('refuses a --wait that is not a whole number of seconds up to 600, naming the value', () => {
    for (const bad of ['-1', '1.5', 'soon', '601']) {
      expect(() => parseGatewayArgs(['--project', '.', '--wait', bad])).toThrow(
        `--wait ${JSON.stringify(bad)} is not a whole number of seconds from 0 to 600`,
      );
    }
  });

  it('reads --version without needing a project', () => {
    expect(parseGatewayArgs(['--version'])).toMatchObject({ version: true, help: false });
  });
});
