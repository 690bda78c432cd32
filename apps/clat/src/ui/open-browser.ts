/** Opens a URL for the person: `$BROWSER <url>` when set, else the platform opener; no shell. @module */
import { spawn } from 'node:child_process';

/** The argv that opens `url`: `$BROWSER` (split on spaces, URL appended) or the OS opener. */
export function openerArgv(
  url: string,
  env: NodeJS.ProcessEnv,
  platform = process.platform,
): string[] {
  const browser = env.BROWSER?.trim();
  if (browser !== undefined && browser !== '') return [...browser.split(/\s+/), url];
  if (platform === 'darwin') return ['open', url];
  if (platform === 'win32') return ['rundll32', 'url.dll,FileProtocolHandler', url];
  return ['xdg-open', url];
}

/**
 * How long an opener that started may still report failing: `xdg-open` with no browser, or a
 * `$BROWSER` that is not one (`false`), exits non-zero at once; a browser itself may run for
 * hours, so one still running after this counts as opened.
 */
const OPENER_FAILS_WITHIN_MS = 1_000;

/**
 * Starts the opener and resolves true once it started and did not fail at once, false when it
 * could not start or exited non-zero straight away (the caller then says so: the URL was printed
 * first, so the person can open it). Only http(s) URLs are ever opened.
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const scheme = new URL(url).protocol;
  if (scheme !== 'https:' && scheme !== 'http:') return Promise.resolve(false);
  const [command, ...args] = openerArgv(url, env);
  if (command === undefined) return Promise.resolve(false);
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, shell: false, env });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      // Neither the opener nor the wait keeps CLAT running once its work is done.
      child.unref();
      const timer = setTimeout(() => resolve(true), OPENER_FAILS_WITHIN_MS);
      timer.unref();
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code === 0);
      });
    });
  });
}
