#!/usr/bin/env node
// clat-wasm-build <entry> -o <out.wasm> [--allow-http]: bundles and componentizes a guest.
import { parseArgs } from 'node:util';
import { buildGuest } from '../dist/build.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string', short: 'o' },
    'allow-http': { type: 'boolean', default: false },
  },
});
const [entry] = positionals;
if (entry === undefined || values.out === undefined) {
  process.stderr.write('usage: clat-wasm-build <entry.js|entry.ts> -o <out.wasm> [--allow-http]\n');
  process.exit(2);
}
const started = Date.now();
try {
  const result = await buildGuest({
    entry,
    outFile: values.out,
    allowHttp: values['allow-http'],
  });
  process.stdout.write(
    `built ${result.outFile} (${result.bytes} bytes, ${Date.now() - started} ms); imports: ${result.imports.join(', ')}\n`,
  );
} catch (error) {
  process.stderr.write(
    `clat-wasm-build: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
