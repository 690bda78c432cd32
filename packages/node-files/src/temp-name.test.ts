import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isAbandonedTempFileOf,
  isTempFileOf,
  tempFileTarget,
  tempFileWriter,
  tempPathFor,
} from './temp-name.js';

describe('tempPathFor', () => {
  it('names a hidden sibling that differs on every call', () => {
    const path = join('/some', 'dir', 'registry.json');
    const names = Array.from({ length: 100 }, () => tempPathFor(path));
    expect(new Set(names).size).toBe(100);
    for (const name of names) {
      expect(dirname(name)).toBe(dirname(path));
      expect(basename(name)).toMatch(
        new RegExp(`^\\.registry\\.json\\.${process.pid}\\.[0-9a-f]{16}\\.tmp$`),
      );
    }
  });
});

describe('isTempFileOf', () => {
  it("recognises a file's temporary siblings and nothing else", () => {
    expect(isTempFileOf(basename(tempPathFor('/d/registry.json')), 'registry.json')).toBe(true);
    expect(isTempFileOf('.registry.json.0a1b.tmp', 'registry.json')).toBe(true);
    expect(isTempFileOf('registry.json', 'registry.json')).toBe(false);
    expect(isTempFileOf('.registry.json.bak', 'registry.json')).toBe(false);
    expect(isTempFileOf('.lock.1.tmp', 'registry.json')).toBe(false);
    expect(isTempFileOf('registry.json.1.tmp', 'registry.json')).toBe(false);
  });
});

describe('tempFileTarget', () => {
  it('names the file a temporary sibling stands for, and nothing for other paths', () => {
    expect(tempFileTarget(tempPathFor('/d/.clat/mcp.json'))).toBe('/d/.clat/mcp.json');
    expect(tempFileTarget('/d/.mcp.json.lock.26655.98ef0123456789ab.tmp')).toBe('/d/mcp.json.lock');
    expect(tempFileTarget('/d/mcp.json')).toBeUndefined();
    expect(tempFileTarget('/d/.mcp.json.0a1b.tmp')).toBeUndefined();
  });
});

describe('tempFileWriter', () => {
  it("reads the writer's pid from a temporary sibling's name, also of a dotted name", () => {
    expect(tempFileWriter('.mcp.json.4242.0123456789abcdef.tmp', 'mcp.json')).toBe(4242);
    expect(tempFileWriter(basename(tempPathFor('/d/a.b.json')), 'a.b.json')).toBe(process.pid);
    expect(tempFileWriter('.mcp.json.x.0123.tmp', 'mcp.json')).toBeUndefined();
    expect(tempFileWriter('.mcp.json.0.0123.tmp', 'mcp.json')).toBeUndefined();
  });
});

describe('isAbandonedTempFileOf', () => {
  it('is true only for a temporary sibling whose writer no longer runs', async () => {
    const { spawnSync } = await import('node:child_process');
    // A pid that ran and ended: the child's, once it has exited.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const random = '0123456789abcdef';
    expect(isAbandonedTempFileOf(`.lock.${gone}.${random}.tmp`, 'lock')).toBe(true);
    expect(isAbandonedTempFileOf(`.lock.${process.pid}.${random}.tmp`, 'lock')).toBe(false);
    expect(isAbandonedTempFileOf(`.lock.${process.ppid}.${random}.tmp`, 'lock')).toBe(false);
    expect(isAbandonedTempFileOf(`.other.${gone}.${random}.tmp`, 'lock')).toBe(false);
  });
});
