/**
 * Runs in its own process so its peak RSS is its own: opens the bench server through one client
 * (`clat` by default, or any peer id of peers.mjs), has the server flood frames over the 4 MiB
 * stdio limit and reports the RSS before the flood and its peak. Usage: node rss-worker.mjs [peer]
 */
import { resourceUsage } from 'node:process';
import { BENCH_SERVER, mountClat, tempHome } from './lib.mjs';

const MiB = 1024 * 1024;
const peerId = process.argv[2] ?? 'clat';
const home = tempHome();
/** CLAT's process loads CLAT alone, so its floor (figure 3b) holds no peer's modules. */
async function open() {
  if (peerId === 'clat') return mountClat('rss', home.dir);
  const { PEERS } = await import('./peers.mjs');
  const peer = PEERS.find((candidate) => candidate.id === peerId);
  if (peer === undefined) throw new Error(`no peer ${JSON.stringify(peerId)} in peers.mjs`);
  return peer.open(BENCH_SERVER, home.dir);
}
const client = await open();
for (let i = 0; i < 50; i++) await client.call('echo', { text: 'warm' });
// The floor is the RSS now, not the process's peak so far: a peak reached while connecting (100
// MiB in one run, 76 MiB in others) hid the whole flood behind it.
const baseline = process.memoryUsage().rss;
const peakBefore = resourceUsage().maxRSS * 1024;
let sampled = baseline;
const sampler = setInterval(() => {
  sampled = Math.max(sampled, process.memoryUsage().rss);
}, 1);
const frames = Number(process.env.FRAMES ?? 16);
let outcome;
try {
  const result = await client.call('flood', { frames, bytes: 4 * MiB + 1 });
  const failed = result?.isError === true || result?.error !== undefined;
  outcome = failed ? 'tool error' : 'completed';
} catch (error) {
  outcome = `${error.code ?? 'error'}: ${String(error.message).slice(0, 160)}`;
}
clearInterval(sampler);
// The kernel's peak counts only when the flood raised it; the 1 ms samples catch the rest.
const peakAfter = resourceUsage().maxRSS * 1024;
const peak = Math.max(peakAfter > peakBefore ? peakAfter : 0, sampled);
await client.close();
home.cleanup();
process.stdout.write(
  `${JSON.stringify({ peer: peerId, baselineBytes: baseline, peakBytes: peak, attemptedBytes: frames * (4 * MiB + 1), outcome })}\n`,
);
