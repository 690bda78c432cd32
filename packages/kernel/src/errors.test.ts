import { describe, expect, it } from 'vitest';
import {
  ClatError,
  clatErrorGuard,
  describeClatError,
  isClatError,
  isKernelError,
  KernelError,
  KernelErrorCode,
} from './errors.js';

class PluginError extends ClatError<'PLUGIN_BROKE'> {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('PLUGIN_BROKE', message, options);
    this.name = 'PluginError';
  }
}
const isPluginError = clatErrorGuard<PluginError>('PluginError');

describe('ClatError', () => {
  it('carries a string code, data and the standard cause', () => {
    const cause = new Error('root');
    const error = new ClatError('X_FAILED', 'x failed for "a"', { data: { a: 1 }, cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('X_FAILED');
    expect(error.data).toEqual({ a: 1 });
    expect(error.cause).toBe(cause);
    expect('cause' in new ClatError('X', 'no cause')).toBe(false);
  });

  it('is recognised for every subclass, and each family guard only accepts its own', () => {
    const kernel = new KernelError(KernelErrorCode.TIMEOUT, 't');
    const plugin = new PluginError('p');
    expect(isClatError(kernel) && isClatError(plugin)).toBe(true);
    expect(isKernelError(kernel)).toBe(true);
    expect(isKernelError(plugin)).toBe(false);
    expect(isPluginError(plugin)).toBe(true);
    expect(isPluginError(kernel)).toBe(false);
    for (const foreign of [new Error('e'), { code: 'X' }, null, 'TIMEOUT', undefined]) {
      expect(isClatError(foreign)).toBe(false);
    }
  });

  it('is recognised across separately loaded copies of the module (bundled twice)', async () => {
    // A query suffix makes vite load errors.ts a second time: a distinct class, like a plugin
    // that bundles its own kernel.
    const path = './errors.js?second-copy';
    const copy = (await import(/* @vite-ignore */ path)) as typeof import('./errors.js');
    expect(copy.KernelError).not.toBe(KernelError);
    const foreign = new copy.KernelError(KernelErrorCode.CANCELLED, 'c');
    expect(foreign instanceof KernelError).toBe(false);
    expect(isClatError(foreign)).toBe(true);
    expect(isKernelError(foreign)).toBe(true);
    expect(copy.isClatError(new PluginError('p'))).toBe(true);
  });

  it('describes a ClatError as one line with its code', () => {
    expect(describeClatError(new PluginError('the server "a" crashed'))).toBe(
      'the server "a" crashed [PLUGIN_BROKE]',
    );
    expect(describeClatError(new Error('plain'))).toBe('plain');
  });
});
