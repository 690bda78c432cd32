import { Script } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withoutDebugLog } from '../glue-load.js';
import { fixtureGlueSource } from '../test-support/build-wat.js';
import { GLUE_SCRIPT_HEAD_LINES, glueScript } from './glue-script.mjs';

describe('the glue as a classic script', () => {
  let glue: string;

  beforeAll(async () => {
    glue = withoutDebugLog(await fixtureGlueSource());
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
