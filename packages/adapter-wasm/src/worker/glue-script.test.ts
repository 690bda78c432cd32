import { Script } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureGlueSource } from '../test-support/build-wat.js';
import { GLUE_SCRIPT_HEAD_LINES, glueScript, withoutDebugLog } from './glue-script.mjs';

describe('the glue as a guest worker runs it', () => {
  let verified: string;
  let glue: string;

  beforeAll(async () => {
    verified = await fixtureGlueSource();
    glue = withoutDebugLog(verified);
  });

  it("replaces the pinned jco's never-enabled debug logger with an empty function, and nothing else", () => {
    // Fails when a jco upgrade words the logger differently: the replacement would be lost.
    expect(verified).toContain('console.debug(...args);');
    expect(glue).toContain('const _debugLog = () => {};');
    expect(glue).not.toContain('console.debug(...args);');
    const removed = verified.length - glue.length;
    expect(removed).toBeGreaterThan(0);
    expect(removed).toBeLessThan(200);
    expect(glue.replace('const _debugLog = () => {};', '')).toBe(
      verified.replace(/const _debugLog = \(\.\.\.args\) => \{[\s\S]*?\n\s*\};/, ''),
    );
  });

  it('leaves glue that words its logger differently as it is', () => {
    const other = 'const _debugLog = (...args) => { console.debug(...args); };';
    expect(withoutDebugLog(other)).toBe(other);
  });

  it("turns the pinned jco's glue into a strict script whose value returns its instantiate", () => {
    // Fails when a jco upgrade changes the glue's shape: workers would import it as a module.
    const script = glueScript(glue);
    expect(script).toBeDefined();
    const lines = (script ?? '').split('\n');
    expect(lines.slice(0, GLUE_SCRIPT_HEAD_LINES)).toEqual(['(function () {', "'use strict';"]);
    expect(script).not.toMatch(/^export /m);
    expect(script).not.toContain('import.meta');
    const instantiate = new Script(script ?? '').runInThisContext()();
    expect(typeof instantiate).toBe('function');
    expect(instantiate.name).toBe('instantiate');
    // The one default it drops is one the worker never uses: it now says so.
    expect(() => instantiate(undefined, {})).toThrow('the guest worker passes getCoreModule');
  });

  it('changes nothing but the three rewritten texts, wherever they are in the glue', () => {
    const expected = glue
      .replace('\nexport function instantiate(', '\nfunction instantiate(')
      .replace('\nexport const _util = ', '\nconst _util = ')
      .replace(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the glue's own text, matched literally
        'if (!getCoreModule) getCoreModule = (name) => fetchCompile(new URL(`./${name}`, import.meta.url));',
        "if (!getCoreModule) throw new TypeError('the guest worker passes getCoreModule');",
      );
    expect(expected).not.toBe(glue);
    expect(glueScript(glue)).toBe(
      `(function () {\n'use strict';\n${expected}\nreturn instantiate;\n})`,
    );
    // The same texts in another order than jco's are rewritten alike.
    const body = 'function instantiate(getCoreModule) { return getCoreModule; }';
    expect(glueScript(`"use components";\nexport const _util = {};\nexport ${body}\n`)).toBe(
      `(function () {\n'use strict';\n"use components";\nconst _util = {};\n${body}\n\nreturn instantiate;\n})`,
    );
  });

  it('leaves glue of another shape to be imported as a module', () => {
    const shaped = (body: string) => `"use components";\n${body}\nexport const _util = {};\n`;
    const one = 'export function instantiate(getCoreModule) { return getCoreModule; }';
    expect(glueScript(shaped(one))).toBeDefined();
    expect(glueScript(shaped(`import { x } from 'y';\n${one}`))).toBeUndefined();
    expect(glueScript(shaped(`${one}\nexport const other = 1;`))).toBeUndefined();
    expect(glueScript(shaped(`${one}\n${one}`))).toBeUndefined();
    expect(glueScript(shaped('export async function instantiate() {}'))).toBeUndefined();
    expect(glueScript(shaped(`${one}\nconst url = import.meta.url;`))).toBeUndefined();
    expect(glueScript(shaped(`${one}\nconst later = () => import('./x.js');`))).toBeUndefined();
  });
});
