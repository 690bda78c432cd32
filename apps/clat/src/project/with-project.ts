/** Opens, starts and always closes a project around one command. @module */
import { sanitizeTerminalLine, sanitizeTerminalText } from '@clat/kernel';
import type { CommandIO } from '../command.js';
import { showMountProgress } from '../ui/progress.js';
import { type OpenedProject, type OpenProjectOptions, openProject } from './open-project.js';

/**
 * Opens the project, runs `body`, closes the project. Servers main() prestarted for this command
 * (`io.prestarted`) are handed to the stdio transport; whatever it did not adopt is closed here.
 */
export async function withProject<T>(
  io: CommandIO,
  options: OpenProjectOptions,
  body: (project: OpenedProject) => Promise<T>,
): Promise<T> {
  // A custom composition (the demo, other distributions) brings its own transports.
  const prestarted = options.composition === undefined ? io.prestarted : undefined;
  try {
    const project = await openProject(
      io,
      prestarted === undefined ? options : { ...options, prestarted },
    );
    for (const issue of project.configIssues) {
      io.stderr.write(`clat: config: ${sanitizeTerminalLine(issue)}\n`);
    }
    project.session.start();
    try {
      return await body(project);
    } finally {
      await project.session.close().catch((error: unknown) => {
        io.stderr.write(
          `clat: closing the project failed: ${sanitizeTerminalText((error as Error).message)}\n`,
        );
      });
    }
  } finally {
    // Prestarted servers no transport adopted (the project failed to open, or an entry changed
    // on the way) are torn down like any server, before the command returns.
    await io.prestarted?.close();
  }
}

/** Waits for the initial surface with a progress indicator on a TTY, then freezes. */
export async function waitForSurface(io: CommandIO, project: OpenedProject): Promise<void> {
  const stop = showMountProgress(project.session.mount, io.stderr);
  try {
    await project.session.mount.freezeForFirstRun();
  } finally {
    stop();
  }
}
