#!/usr/bin/env node
// CommonJS (bin/package.json): the boot bundle below runs before Node sets up its ES-module
// loader, so a project's stdio servers spawn first and boot while the main bundle loads.
'use strict';
const { join } = require('node:path');
const {
  dispatchedCommand,
  loadMainBundle,
  prestartForArgv,
  setV8FlagsFor,
} = require('../dist/early/boot.cjs');

// A reader that went away (`clat tools --json | head -1`) is not an error: end quietly with 0,
// like `yes | head`. Exit hooks still stop every server process group.
// Any other failure to write output (a full disk behind `> file`, `>/dev/full`) is one line on
// stderr and exit 1, not a stack trace; with stderr itself failing, only the exit code says it.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    if (stream === process.stdout) {
      try {
        require('node:fs').writeSync(2, `clat: cannot write the output: ${error.message}\n`);
      } catch {
        // stderr is gone as well.
      }
    }
    process.exit(1);
  });
}

async function run() {
  const argv = process.argv.slice(2);
  // The command as main() dispatches it. isatty(0) is asked only for bare `clat` and session
  // flags: process.stdin would build a stream over fd 0, and node:tty costs 0.3 ms.
  const command = dispatchedCommand(argv, () => require('node:tty').isatty(0));
  // Before anything compiles WebAssembly, and before the bundle's code cache is read or written
  // (bin-v8-flags.ts).
  setV8FlagsFor(command);
  // Any doubt means no prestart: the command then starts and reports its servers itself.
  const prestarted = await prestartForArgv(argv, process.env, process.cwd()).catch(() => undefined);
  // One CommonJS bundle through V8's code cache of this command (<clat home>/cache/code), see
  // bin-main-bundle.ts.
  const bundle = loadMainBundle(
    join(__dirname, '../dist/bin/main.cjs'),
    process.env,
    process.cwd(),
    command,
  );
  // zod without its JIT, before any command module builds a schema (bin-schema-jit.ts).
  await bundle.exports.setSchemaJitFor(command);
  // main() owns `prestarted` and closes whatever no transport adopted.
  process.exitCode = await bundle.exports.main(argv, { prestarted });
  bundle.saveCodeCache();
}

run().catch((error) => {
  // main() reports every failure itself and never throws: this is a broken install (the bundle
  // missing or unreadable), so the message is Node's, about our own files.
  process.stderr.write(`clat: cannot start: ${error?.message ?? error}\n`);
  process.exitCode = 1;
});
