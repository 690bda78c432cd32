import { describe, expect, it } from 'vitest';
import { KernelErrorCode } from './errors.js';
import { createGlobalScope } from './scope.js';

describe('Scope', () => {
  it('revokes leases and runs close hooks in reverse registration order', async () => {
    const order: string[] = [];
    const scope = createGlobalScope();
    scope.lease('a', () => void order.push('lease a'));
    scope.onClose(() => void order.push('hook 1'));
    scope.lease('b', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push('lease b');
    });
    scope.onClose(() => void order.push('hook 2'));
    await scope.close();
    expect(order).toEqual(['hook 2', 'lease b', 'hook 1', 'lease a']);
  });

  it('drains pre-close hooks first, then children (newest first), then its own stack', async () => {
    const order: string[] = [];
    const root = createGlobalScope('root');
    const project = root.child('project');
    const run = project.child('run-1');
    root.onClose(() => void order.push('root close'));
    project.onClose(() => void order.push('project close'));
    run.lease('tool', () => void order.push('run lease'));
    root.onPreClose(() => void order.push('root pre-close'));
    project.onPreClose(() => void order.push('project pre-close'));
    await root.close();
    expect(order).toEqual([
      'root pre-close',
      'project pre-close',
      'run lease',
      'project close',
      'root close',
    ]);
    expect(run.closed && project.closed && root.closed).toBe(true);
  });

  it('is idempotent: concurrent and repeated closes run each step once', async () => {
    let count = 0;
    const scope = createGlobalScope();
    scope.onClose(() => {
      count++;
    });
    await Promise.all([scope.close(), scope.close()]);
    await scope.close();
    expect(count).toBe(1);
  });

  it('runs every step even when some fail, then throws one AggregateError', async () => {
    const order: string[] = [];
    const scope = createGlobalScope('s');
    scope.onClose(() => void order.push('first'));
    scope.onClose(() => {
      throw new Error('boom');
    }, 'bad hook');
    scope.lease('x', () => void order.push('lease'));
    const error = await scope.close().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AggregateError);
    const inner = (error as AggregateError).errors[0] as { code: string; message: string };
    expect(inner.code).toBe(KernelErrorCode.SCOPE_CLOSE_FAILED);
    expect(inner.message).toContain('bad hook in scope "s" failed: boom');
    expect(order).toEqual(['lease', 'first']);
  });

  it('time-boxes a hanging hook and continues', async () => {
    const order: string[] = [];
    const scope = createGlobalScope('s', { hookTimeoutMs: 20 });
    scope.onClose(() => void order.push('after'));
    scope.onClose(() => new Promise<void>(() => {}), 'hang');
    await expect(scope.close()).rejects.toThrow(/1 close step/);
    expect(order).toEqual(['after']);
  });

  it('releases a lease once, early, and skips it at close', async () => {
    let revoked = 0;
    const scope = createGlobalScope();
    const lease = scope.lease('x', () => {
      revoked++;
    });
    await lease.release();
    await lease.release();
    expect(lease.released).toBe(true);
    await scope.close();
    expect(revoked).toBe(1);
  });

  it('supports await using', async () => {
    let closed = false;
    {
      await using scope = createGlobalScope();
      scope.onClose(() => {
        closed = true;
      });
    }
    expect(closed).toBe(true);
  });

  it('refuses registrations after close', async () => {
    const scope = createGlobalScope('g');
    await scope.close();
    expect(() => scope.lease('x', () => {})).toThrow(
      expect.objectContaining({ code: KernelErrorCode.SCOPE_CLOSED }),
    );
    expect(() => scope.child('p')).toThrow(
      expect.objectContaining({ code: KernelErrorCode.SCOPE_CLOSED }),
    );
  });

  it('allows one active run per project and nests kinds global → trusted-project → run', async () => {
    const project = createGlobalScope().child('p');
    expect(project.kind).toBe('trusted-project');
    const run = project.child('r1');
    expect(run.kind).toBe('run');
    expect(() => project.child('r2')).toThrow(
      expect.objectContaining({ code: KernelErrorCode.RUN_ALREADY_ACTIVE }),
    );
    expect(() => run.child('x')).toThrow(
      expect.objectContaining({ code: KernelErrorCode.INTERNAL }),
    );
    await run.close();
    expect(project.child('r2').kind).toBe('run');
  });

  it('lets children read parent values and keeps child writes local', async () => {
    const root = createGlobalScope();
    root.provide('home', '/h');
    const project = root.child('p');
    project.provide('root', '/p');
    expect(project.lookup('home')).toBe('/h');
    expect(root.lookup('root')).toBeUndefined();
    await root.close();
  });
});
