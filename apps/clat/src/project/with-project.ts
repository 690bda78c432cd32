/** Opens, starts and always closes a project around one command. @module */
import { sanitizeTerminalLine, sanitizeTerminalText } from '@clat/kernel';
import type { CommandIO } from '../command.js';
import { showMountProgress } from '../ui/progress.js';
import { type OpenedProject, type OpenProjectOptions, openProject } from './open-project.js';

/**
 * Opens the project, runs `body`, closes the project. Servers main() prestarted for this command
 * (`io.prestarted`) are handed to the stdio transport; main() owns the set and closes whatever no
 * transport adopted once the command returns.
 */
export async function withProject<T>(
  io: CommandIO,
  options: OpenProjectOptions,
  body: (project: OpenedProject) => Promise<T>,
): Promise<T> {
  // A custom composition (the demo, other distributions) brings its own transports.
  const prestarted = options.composition === undefined ? io.prestarted : undefined;
  const project = await openProject(
    io,
    prestarted === undefined ? options : { ...options, prestarted },
  );
  for (const issue of [...project.userConfigIssues, ...project.configIssues]) {
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
