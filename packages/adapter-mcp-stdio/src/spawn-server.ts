/**
 * The one way a stdio server process is started, shared by the transport and by a prestart, so a
 * prestarted process is the very process the transport would have spawned.
 * @module
 */
import {
  type ChildProcessByStdio,
  type ChildProcessWithoutNullStreams,
  spawn,
} from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { SERVER_TAG_ENV } from './detached-sweep.js';

export interface ServerSpawn {
  command: string;
  args?: readonly string[] | undefined;
  /** Merged over the inherited environment. */
  env?: Readonly<Record<string, string>> | undefined;
}

/** A spawned server: stdin and stderr are pipes; stdout is a pipe unless a socket was given. */
export type ServerProcess = ChildProcessByStdio<Writable, Readable | null, Readable>;

/**
 * Spawns `server` in `cwd` as the leader of its own process group, tagged with `tag`. Its stdout
 * is a pipe, or `stdout` (one end of a socket pair; the caller destroys its copy once spawned).
 */
export function spawnServerProcess(
  server: ServerSpawn,
  cwd: string,
  tag: string,
): ChildProcessWithoutNullStreams;
export function spawnServerProcess(
  server: ServerSpawn,
  cwd: string,
  tag: string,
  stdout: Socket | undefined,
): ServerProcess;
export function spawnServerProcess(
  server: ServerSpawn,
  cwd: string,
  tag: string,
  stdout?: Socket,
): ServerProcess {
  return spawn(server.command, [...(server.args ?? [])], {
    cwd,
    env: { ...process.env, ...server.env, [SERVER_TAG_ENV]: tag },
    stdio: ['pipe', stdout ?? 'pipe', 'pipe'],
    // Own process group (pgid = pid), so teardown signals reach grandchildren.
    detached: process.platform !== 'win32',
    windowsHide: true,
  }) as ServerProcess;
}
