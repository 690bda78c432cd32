/**
 * Turns zod's JIT off for this process (bin-schema-jit.ts says when and why). A module of its own,
 * imported lazily: a dynamic `import('zod')` would keep every export of zod in the binary's
 * bundle, since esbuild cannot tell which a namespace object's reader uses.
 * @module
 */
import { config } from 'zod';

export function turnZodJitOff(): void {
  config({ jitless: true });
}
