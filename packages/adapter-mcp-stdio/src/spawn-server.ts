/**
 * The one way a stdio server process is started, shared by the transport and by a prestart, so a
 * prestarted process is the very process the transport would have spawned.
 * @module
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { SERVER_TAG_ENV } from './detached-sweep.js';

export interface ServerSpawn {
  command: string;
  args?: readonly string[] | undefined;
  /** Merged over the inherited environment. */
  env?: Readonly<Record<string, string>> | undefined;
}

/** Spawns `server` in `cwd` as the leader of its own process group, tagged with `tag`. */
export function spawnServerProcess(
  server: ServerSpawn,
  cwd: string,
  tag: string,
): ChildProcessWithoutNullStreams {
  return spawn(server.command, [...(server.args ?? [])], {
    cwd,
    env: { ...process.env, ...server.env, [SERVER_TAG_ENV]: tag },
    stdio: ['pipe', 'pipe', 'pipe'],
    // Own process group (pgid = pid), so teardown signals reach grandchildren.
    detached: process.platform !== 'win32',
    windowsHide: true,
  });
}
