// Regenerates schemas/*.json from the built kernel (run `pnpm --filter @clat/kernel schemas`).
// A kernel test fails when a committed schema file drifts from the zod source.
import { writeFileSync } from 'node:fs';
import { pluginContractJsonSchema } from '../dist/index.js';

const target = new URL('../schemas/clat-plugin-0.1.0.schema.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(pluginContractJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${target.pathname}\n`);
