import { describe, expect, it } from 'vitest';
import { openBrowser, openerArgv } from './open-browser.js';

const URL = 'https://example.com/x';

describe('openBrowser', () => {
  it('runs $BROWSER with the URL appended, else the platform opener', () => {
    expect(openerArgv(URL, { BROWSER: 'firefox --new-tab' })).toEqual([
      'firefox',
      '--new-tab',
      URL,
    ]);
    expect(openerArgv(URL, {}, 'linux')).toEqual(['xdg-open', URL]);
    expect(openerArgv(URL, {}, 'darwin')).toEqual(['open', URL]);
  });

  it('is false for an opener that is missing or fails at once, true for one that succeeds', async () => {
    expect(await openBrowser(URL, { BROWSER: 'false' })).toBe(false);
    expect(await openBrowser(URL, { BROWSER: 'clat-no-such-opener-xyz' })).toBe(false);
    expect(await openBrowser(URL, { BROWSER: 'true' })).toBe(true);
    expect(await openBrowser('file:///etc/passwd', { BROWSER: 'true' })).toBe(false);
  });

  it('counts an opener still running after the grace period as opened', async () => {
    const started = Date.now();
    expect(
      await openBrowser(URL, { BROWSER: `${process.execPath} -e setTimeout(()=>{},3000)` }),
    ).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});
