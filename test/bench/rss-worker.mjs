/**
 * Runs in its own process so its peak RSS is its own: mounts the bench server through CLAT,
 * then has it flood frames over the 4 MiB stdio limit and reports baseline and peak RSS.
 */
import { resourceUsage } from 'node:process';
import { mountClat, tempHome } from './lib.mjs';

const MiB = 1024 * 1024;
const home = tempHome();
const clat = await mountClat('rss', home.dir);
for (let i = 0; i < 50; i++) await clat.call('echo', { text: 'warm' });
const baseline = resourceUsage().maxRSS * 1024;
let sampled = process.memoryUsage().rss;
const sampler = setInterval(() => {
  sampled = Math.max(sampled, process.memoryUsage().rss);
}, 1);
const frames = Number(process.env.FRAMES ?? 16);
let outcome;
try {
  const result = await clat.call('flood', { frames, bytes: 4 * MiB + 1 });
  outcome = result.isError ? `tool error: ${result.content.slice(0, 120)}` : 'completed';
} catch (error) {
  outcome = `${error.code ?? 'error'}: ${String(error.message).slice(0, 160)}`;
}
clearInterval(sampler);
const peak = Math.max(resourceUsage().maxRSS * 1024, sampled);
await clat.close();
home.cleanup();
process.stdout.write(
  `${JSON.stringify({ baselineBytes: baseline, peakBytes: peak, attemptedBytes: frames * (4 * MiB + 1), outcome })}\n`,
);
