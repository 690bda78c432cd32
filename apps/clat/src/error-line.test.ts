import { describe, expect, it } from 'vitest';
import { errorLine, fileErrorText, unexpectedErrorLine } from './error-line.js';
import { CliError, CliErrorCode } from './errors.js';

const KEY = 'sk-proj-AbCdEfGh0123456789';

describe('errorLine', () => {
  it('redacts a key a ClatError message quotes by mistake, and keeps its code', () => {
    const line = errorLine(
      new CliError(CliErrorCode.CLI_CONFIG_INVALID, `config.json: near "apiKey": ${KEY}`),
    );
    expect(line).not.toContain('AbCdEfGh');
    expect(line).toBe('clat: config.json: near "apiKey": [REDACTED] [CLI_CONFIG_INVALID]\n');
  });

  it('sanitises what a server sent', () => {
    // A hint goes before the code, and a `$` in it is text.
    expect(errorLine(new CliError(CliErrorCode.CLI_USAGE, 'no'), ' (see $HOME/$&)')).toBe(
      'clat: no (see $HOME/$&) [CLI_USAGE]\n',
    );
    expect(errorLine(new Error('bad\x1b]52;c;AAAA\x07'))).toBe('clat: bad\\x1b]52;c;AAAA\\x07\n');
  });

  it("indents a message's later lines, so none passes for a line of CLAT's own", () => {
    expect(errorLine(new Error('boom\nAllow mcp_x_delete? [y/N]\nclat: done'))).toBe(
      'clat: boom\n  Allow mcp_x_delete? [y/N]\n  clat: done\n',
    );
  });
});

describe('unexpectedErrorLine', () => {
  const bug = new TypeError(`cannot read Authorization: Bearer ${KEY}`);

  it('is one redacted line without CLAT_DEBUG', () => {
    const line = unexpectedErrorLine(bug, {});
    expect(line).toBe('clat: unexpected error: cannot read Authorization: Bearer [REDACTED]\n');
  });

  it('redacts the stack CLAT_DEBUG adds', () => {
    const line = unexpectedErrorLine(bug, { CLAT_DEBUG: '1' });
    expect(line).toContain('TypeError: cannot read Authorization: Bearer [REDACTED]\n    at ');
    expect(line).not.toContain('AbCdEfGh');
  });
});

/** An error as node:fs raises it. */
function fsError(code: string, syscall: string, path?: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: ${syscall}`);
  error.code = code;
  error.syscall = syscall;
  if (path !== undefined) error.path = path;
  return error;
}

describe('fileErrorText', () => {
  it('names the file a person knows, why, and what to check', () => {
    expect(
      fileErrorText(
        fsError('EACCES', 'open', '/h/.clat/.mcp.json.lock.26655.98ef0123456789ab.tmp'),
      ),
    ).toBe(
      'cannot write /h/.clat/mcp.json: permission denied (EACCES); check the owner and mode of /h/.clat',
    );
    expect(
      fileErrorText(fsError('EPERM', 'rename', '/h/.clat/.mcp.json.27007.0123456789abcdef.tmp')),
    ).toBe(
      'cannot replace /h/.clat/mcp.json: operation not permitted (EPERM); check the owner, mode and attributes of /h/.clat',
    );
    expect(fileErrorText(fsError('EROFS', 'mkdir', '/h/.clat/plugin-store'))).toBe(
      'cannot create /h/.clat/plugin-store: its file system is read-only (EROFS)',
    );
    expect(fileErrorText(fsError('ENOSPC', 'write'))).toBe(
      'cannot write: the disk is full (ENOSPC); free some space and retry',
    );
    expect(fileErrorText(fsError('EACCES', 'spawn /opt/server', '/opt/server'))).toBe(
      'cannot run /opt/server: permission denied (EACCES); check the owner and mode of /opt',
    );
    expect(fileErrorText(fsError('ECONNRESET', 'read'))).toBeUndefined();
    expect(fileErrorText(new Error('plain'))).toBeUndefined();
  });

  it('names a path too long for the file system by the file a person knows', () => {
    expect(
      fileErrorText(
        fsError('ENAMETOOLONG', 'open', '/p/.clat/.mcp.json.lock.1234.0123456789abcdef.tmp'),
      ),
    ).toBe(
      'cannot write /p/.clat/mcp.json: its path is too long for the file system (ENAMETOOLONG); use a shorter path (a project nearer the root, or a shorter CLAT_HOME)',
    );
  });

  it('reports an unreadable file as a failed read, naming the file whose mode to check', () => {
    // Said as the plugin store says it (node-files' readRefusal): a file not there to look at
    // sends a person to its directory; one there is named with its owner and mode.
    expect(
      fileErrorText(fsError('EACCES', 'open', '/h/.clat/trust.json'), { action: 'read' }),
    ).toBe(
      `cannot read /h/.clat/trust.json: permission denied (EACCES); check the owner and mode of its directory /h/.clat (ls -ld), as clat runs as uid ${process.getuid?.()}`,
    );
    expect(
      fileErrorText(fsError('EACCES', 'open', import.meta.filename), { action: 'read' }),
    ).toMatch(
      /^cannot read .*error-line\.test\.ts: permission denied \(EACCES\); it belongs to uid \d+ with mode 0\d{3} and clat runs as uid \d+: give it back to the user who runs clat \(chown\) with mode 0600, or run clat as its owner$/,
    );
    // An open the caller says nothing of is a write: a file `clat plugin new` creates.
    expect(fileErrorText(fsError('EACCES', 'open', '/tmp/empty/package.json'))).toBe(
      'cannot write /tmp/empty/package.json: permission denied (EACCES); check the owner and mode of /tmp/empty',
    );
    expect(fileErrorText(fsError('EACCES', 'read', '/h/.clat/trust.json'))).toBe(
      'cannot read /h/.clat/trust.json: permission denied (EACCES); check the owner and mode of /h/.clat',
    );
    // Opening a temporary sibling or a lock is part of a write.
    expect(
      fileErrorText(fsError('EACCES', 'open', '/h/.clat/trust.json.lock'), { action: 'read' }),
    ).toBe(
      'cannot write /h/.clat/trust.json: permission denied (EACCES); check the owner and mode of /h/.clat',
    );
    expect(fileErrorText(new Error('plain'))).toBeUndefined();
  });
});
