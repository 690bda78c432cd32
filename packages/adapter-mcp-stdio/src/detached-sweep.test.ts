import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SERVER_TAG_ENV, taggedProcesses } from './detached-sweep.js';

describe.runIf(process.platform === 'linux')('taggedProcesses', () => {
  it('finds a tagged process whose environment is larger than one read buffer, and only it', async () => {
    const tag = `sweep-test-${process.pid}-${Date.now()}`;
    // 200 KiB of other variables first: the tag sits past the first buffer's worth of environ.
    const padding = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`PAD_${i}`, 'x'.repeat(4096)]),
    );
    const tagged = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      env: { ...padding, [SERVER_TAG_ENV]: tag },
      stdio: 'ignore',
    });
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      env: { [SERVER_TAG_ENV]: `${tag}-other` },
      stdio: 'ignore',
    });
    try {
      await Promise.all([once(tagged, 'spawn'), once(other, 'spawn')]);
      expect(await taggedProcesses(tag)).toEqual([tagged.pid]);
    } finally {
      tagged.kill('SIGKILL');
      other.kill('SIGKILL');
      await Promise.all([once(tagged, 'exit'), once(other, 'exit')]);
    }
    expect(await taggedProcesses(tag)).toEqual([]);
  });
});
