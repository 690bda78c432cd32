/** `clat plugin new dsh <name>`: a DSH plugin served by @clat/adapter-dsh. @module */
import {
  COUNT_WORDS_TEST_TS,
  COUNT_WORDS_TS,
  GITIGNORE,
  packageJson,
  type ScaffoldFiles,
  TSCONFIG_JSON,
} from './common-files.js';
import { SCAFFOLD_VERSIONS as V } from './sdk-versions.js';

export function dshTemplate(name: string, tool: string): ScaffoldFiles {
  return {
    'package.json': packageJson({
      name,
      version: '0.1.0',
      private: true,
      description: `${name}: a CLAT plugin (DSH)`,
      type: 'module',
      license: 'MIT',
      exports: { '.': './src/index.ts' },
      engines: { node: '>=20.19' },
      clat: { id: name, toolHints: { word_count: 'read-only' }, package: 'dist/package' },
      scripts: {
        build: 'tsc && clat-dsh package . --out dist/package --force',
        test: 'vitest run',
      },
      dependencies: {
        '@clat/adapter-dsh': V['@clat/adapter-dsh'],
        '@clat/kernel': V['@clat/kernel'],
        zod: V.zod,
      },
      devDependencies: {
        '@types/node': V['@types/node'],
        typescript: V.typescript,
        vitest: V.vitest,
      },
    }),
    'tsconfig.json': TSCONFIG_JSON,
    '.gitignore': GITIGNORE,
    'src/count-words.ts': COUNT_WORDS_TS,
    'src/count-words.test.ts': COUNT_WORDS_TEST_TS,
    'src/index.ts': `/**
 * ${name}: a DSH plugin. \`clat-dsh package\` bundles it into an installable MCP stdio package;
 * CLAT calls its tools through the permission pipeline like any other tool.
 */
import { type DshPluginContext, defineTool } from '@clat/adapter-dsh';
import * as z from 'zod';
import { countWords } from './count-words.js';

export const name = '${name}';
/** The DSH services this plugin uses (\`clat-dsh inspect .\` lists what each one needs). */
export const inject = ['tools'];

export function apply(ctx: DshPluginContext): void {
  ctx.tools.register(
    defineTool({
      name: 'word_count',
      description: 'Counts the words of a text',
      // The zod schema is sent to CLAT as JSON Schema and checks every call's arguments.
      parameters: z.object({ text: z.string().describe('The text to count') }),
      execute: ({ text }) => ({ words: countWords(text) }),
    }),
  );
}
`,
    'README.md': `# ${name}

A CLAT plugin written as a DSH plugin (\`src/index.ts\`), served to CLAT by \`@clat/adapter-dsh\`.
Its tool \`word_count\` counts the words of a text; the effect hint in \`package.json\`
(\`clat.toolHints\`) makes it read-only for CLAT's permission modes.

\`\`\`sh
npm install
npm run build        # typecheck, then clat-dsh package: dist/package (manifest + computed digest)
npm test             # unit tests (vitest)
clat plugin install . --accept-capabilities  # installs dist/package
clat trust && clat call ${tool} '{"text":"hello plugin world"}'
\`\`\`

If \`npm install\` cannot find the \`@clat/\` packages (they are not on the public npm registry
yet), pack them from a checkout of CLAT (after its README's set-up there, \`npx -y pnpm@10.34.9 install --frozen-lockfile && npx pnpm build\`) and install
the tarballs first:

\`\`\`sh
rm -rf ~/clat-sdk-dsh
for p in kernel adapter-mcp json-schema node-files adapter-dsh; do (cd <clat-checkout>/packages/$p && npx pnpm pack --pack-destination ~/clat-sdk-dsh); done
npm install ~/clat-sdk-dsh/*.tgz
\`\`\`

\`npx clat-dsh inspect .\` shows the services the plugin uses and the capabilities it will ask
for; \`npx clat-dsh serve .\` serves it on stdio for development.
`,
  };
}
