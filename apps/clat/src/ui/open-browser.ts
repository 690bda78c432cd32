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
 * Starts the opener and resolves once it started (or failed to): the URL was printed first, so
 * a missing opener only costs the convenience. Only http(s) URLs are ever opened.
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
      child.unref();
      resolve(true);
    });
  });
}
