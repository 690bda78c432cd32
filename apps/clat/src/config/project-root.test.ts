import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findProjectRoot } from './project-root.js';

let base: string;
let savedHome: string | undefined;

function dir(...parts: string[]): string {
  const path = join(base, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
}

function projectFile(root: string): void {
  mkdirSync(join(root, '.clat'), { recursive: true });
  writeFileSync(join(root, '.clat', 'mcp.json'), '{}');
}

const none = () => false;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'clat-project-root-')));
  savedHome = process.env.HOME;
});
afterEach(() => {
  process.env.HOME = savedHome;
  rmSync(base, { recursive: true, force: true });
});

describe('findProjectRoot', () => {
  it('is the start when nothing above it is a project', () => {
    const start = dir('plain', 'src');
    expect(findProjectRoot(start, none, dir('clat-home'))).toBe(start);
  });

  it('finds the nearest directory above that holds .clat/mcp.json', () => {
    const repo = dir('repo');
    projectFile(repo);
    const start = dir('repo', 'src', 'lib');
    expect(findProjectRoot(start, none, dir('clat-home'))).toBe(repo);
    // A nested project of its own is nearer.
    const vendored = dir('repo', 'vendor', 'tool');
    projectFile(vendored);
    expect(findProjectRoot(dir('repo', 'vendor', 'tool', 'bin'), none, dir('clat-home'))).toBe(
      vendored,
    );
  });

  it('finds the nearest trusted directory above', () => {
    const repo = dir('trusted-repo');
    const start = dir('trusted-repo', 'packages', 'a');
    expect(findProjectRoot(start, (path) => path === repo, dir('clat-home'))).toBe(repo);
    // The start itself, trusted, is its own project.
    expect(findProjectRoot(start, (path) => path === start || path === repo, base)).toBe(start);
  });

  it('never takes the CLAT home for a project file', () => {
    // $CLAT_HOME at <base>/work/.clat: its mcp.json is the user's file, not the project's.
    const work = dir('work');
    projectFile(work);
    const start = dir('work', 'repo');
    expect(findProjectRoot(start, none, join(work, '.clat'))).toBe(start);
  });

  it('stops below the home directory: a trusted home is not every project', () => {
    const home = dir('home');
    process.env.HOME = home;
    projectFile(home);
    const start = dir('home', 'code', 'repo');
    expect(findProjectRoot(start, (path) => path === home, dir('elsewhere'))).toBe(start);
    // Started in the home itself, it still counts.
    expect(findProjectRoot(home, (path) => path === home, dir('elsewhere'))).toBe(home);
  });

  it('takes no project file from a directory everyone may write to, or from another user', () => {
    // /tmp-like: anyone could plant .clat/mcp.json above someone's work there.
    const shared = dir('shared');
    projectFile(shared);
    chmodSync(shared, 0o1777);
    const start = dir('shared', 'mine', 'src');
    expect(findProjectRoot(start, none, dir('clat-home'))).toBe(start);
    // Trust the person gave still counts there.
    expect(findProjectRoot(start, (path) => path === shared, dir('clat-home'))).toBe(shared);
    if (process.getuid?.() === 0) {
      const foreign = dir('foreign');
      projectFile(foreign);
      chownSync(join(foreign, '.clat'), 12345, 12345);
      expect(findProjectRoot(dir('foreign', 'src'), none, dir('clat-home'))).toBe(
        join(foreign, 'src'),
      );
    }
  });
});
