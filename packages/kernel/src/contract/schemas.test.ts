import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pluginContractJsonSchema } from './plugin-contract.js';

describe('committed JSON Schema', () => {
  it('matches the zod contract (regenerate with `pnpm --filter @clat/kernel schemas`)', () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../schemas/clat-plugin-0.1.0.schema.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(pluginContractJsonSchema());
  });

  it('describes every contract function with params and a result', () => {
    const schema = pluginContractJsonSchema() as {
      interfaces: Record<
        string,
        { functions: Record<string, { params: object; result?: object }> }
      >;
    };
    expect(Object.keys(schema.interfaces.tools?.functions ?? {})).toEqual(['listTools', 'call']);
    expect(schema.interfaces.sampling?.functions.createMessage?.result).toBeDefined();
  });
});
