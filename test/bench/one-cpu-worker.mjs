/**
 * Figures 1e/1f: the sequential calls of 1a/1b with this process and every server it spawns on
 * ONE CPU (`pnpm bench` starts it under `taskset`; children inherit the affinity). On the bench VM
 * a round trip between two CPUs waits for the other CPU to wake from idle, and which CPU a server
 * lands on decides whether a round's p50 is about 30 or about 100 µs. On one CPU a round trip is
 * the client's work, the server's work and two context switches, so what differs between peers
 * is their own work. Prints `{ perCall: { peer: [{ p50, p99 }] }, errors }` as its last line.
 */
import { interleaved, sequentialRound, tempHome } from './lib.mjs';
import { openPeers } from './peers.mjs';

const quick = process.argv.includes('--quick');
const connections = quick ? 1 : 3;
const rounds = quick ? 2 : 3;
const warmCalls = quick ? 200 : 3000;
const n = quick ? 300 : 1000;

const home = tempHome();
const perCall = {};
const errors = {};
try {
  for (let block = 0; block < connections; block++) {
    const { open, errors: failed } = await openPeers(home.dir);
    Object.assign(errors, failed);
    try {
      for (const peer of open) {
        for (let i = 0; i < warmCalls; i++) await peer.client.call('echo', { text: 'warm' });
      }
      for (let r = 0; r < rounds; r++) {
        for (const peer of interleaved(block * rounds + r, open)) {
          if (perCall[peer.id] === undefined) perCall[peer.id] = [];
          perCall[peer.id].push(await sequentialRound(peer.client, n));
        }
      }
    } finally {
      for (const peer of open) await peer.client.close().catch(() => {});
    }
  }
} finally {
  home.cleanup();
}
process.stdout.write(`${JSON.stringify({ perCall, errors, rounds: connections * rounds, n })}\n`);
