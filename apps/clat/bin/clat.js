#!/usr/bin/env node
// CommonJS (bin/package.json): the prestart below runs before Node sets up its ES-module loader,
// so a project's stdio servers spawn first and boot while the ES-module bundle loads.
'use strict';
const { prestartForArgv } = require('../dist/early/prestart.cjs');

// A reader that went away (`clat tools --json | head -1`) is not an error: end quietly with 0,
// like `yes | head`. Exit hooks still stop every server process group.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

async function run() {
  const argv = process.argv.slice(2);
  // Any doubt means no prestart: the command then starts and reports its servers itself.
  const prestarted = await prestartForArgv(argv, process.env, process.cwd()).catch(() => undefined);
  const { main } = await import('../dist/bin/main.js');
  // main() owns `prestarted` and closes whatever no transport adopted.
  process.exitCode = await main(argv, { prestarted });
}

run().catch((error) => {
  // main() reports every failure itself and never throws: this is a broken install (the bundle
  // missing or unreadable), so the message is Node's, about our own files.
  process.stderr.write(`clat: cannot start: ${error?.message ?? error}\n`);
  process.exitCode = 1;
});
