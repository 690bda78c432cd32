#!/usr/bin/env node
// clat-wasm-build <entry> -o <out.wasm> [--manifest clat-plugin.json] [--allow-http]: bundles and
// componentizes a guest; with --manifest also writes the package manifest (computed sha256).
import { parseArgs } from 'node:util';
import { buildGuest } from '../dist/build.js';

const USAGE =
  'usage: clat-wasm-build <entry.js|entry.ts> -o <out.wasm> [--manifest <clat-plugin.json>] [--allow-http]\n';
let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      out: { type: 'string', short: 'o' },
      manifest: { type: 'string', short: 'm' },
      'allow-http': { type: 'boolean', default: false },
    },
  });
} catch (error) {
  process.stderr.write(`clat-wasm-build: ${error.message}\n${USAGE}`);
  process.exit(2);
}
const { values, positionals } = parsed;
const [entry] = positionals;
if (entry === undefined || values.out === undefined) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const started = Date.now();
try {
  const result = await buildGuest({
    entry,
    outFile: values.out,
    allowHttp: values['allow-http'],
    ...(values.manifest === undefined ? {} : { manifest: values.manifest }),
  });
  process.stdout.write(
    `built ${result.outFile} (${result.bytes} bytes, ${Date.now() - started} ms); imports: ${result.imports.join(', ')}\nsha256 ${result.sha256}${result.manifestFile === undefined ? '' : ` written to ${result.manifestFile}`}\n`,
  );
} catch (error) {
  process.stderr.write(
    `clat-wasm-build: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
