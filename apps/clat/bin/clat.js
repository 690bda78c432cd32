#!/usr/bin/env node
import { main } from '../dist/bin/main.js';

// A reader that went away (`clat tools --json | head -1`) is not an error: end quietly with 0,
// like `yes | head`. Exit hooks still stop every server process group.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

process.exitCode = await main(process.argv.slice(2));
