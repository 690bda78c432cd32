/** `clat plugin new wasm <name>`: a TypeScript guest built into a WASM component. @module */
import {
  COUNT_WORDS_TEST_TS,
  COUNT_WORDS_TS,
  GITIGNORE,
  packageJson,
  type ScaffoldFiles,
  TSCONFIG_JSON,
} from './common-files.js';
import { SCAFFOLD_VERSIONS as V } from './sdk-versions.js';

export function wasmTemplate(name: string, tool: string): ScaffoldFiles {
  return {
    'package.json': packageJson({
      name,
      version: '0.1.0',
      private: true,
      description: `${name}: a CLAT plugin (WASM component)`,
      type: 'module',
      license: 'MIT',
      engines: { node: '>=20.19' },
      // "clat plugin install ." installs this build output.
      clat: { package: 'dist' },
      scripts: {
        build:
          'tsc && clat-wasm-build src/plugin.ts -o dist/plugin.wasm --manifest clat-plugin.json',
        test: 'vitest run',
      },
      dependencies: { '@clat/wasm-guest-sdk': V['@clat/wasm-guest-sdk'] },
      devDependencies: {
        '@types/node': V['@types/node'],
        typescript: V.typescript,
        vitest: V.vitest,
      },
      // componentize-js reads the WIT through this shim; newer versions break it.
      overrides: { '@bytecodealliance/preview2-shim': V['@bytecodealliance/preview2-shim'] },
    }),
    'clat-plugin.json': `${JSON.stringify(
      {
        manifestVersion: 1,
        id: name,
        name,
        version: '0.1.0',
        description: 'Counts words (a CLAT WASM plugin)',
        runtime: { kind: 'wasm-component', entry: 'plugin.wasm' },
        capabilities: { tools: true },
      },
      null,
      2,
    )}\n`,
    'tsconfig.json': TSCONFIG_JSON,
    '.gitignore': GITIGNORE,
    'src/count-words.ts': COUNT_WORDS_TS,
    'src/count-words.test.ts': COUNT_WORDS_TEST_TS,
    'src/plugin.ts': `/**
 * ${name}: a CLAT WASM plugin. \`clat-wasm-build\` compiles this file into a sandboxed component;
 * CLAT checks each call's arguments against \`inputSchema\` before the guest runs.
 */
import { definePlugin, defineTool } from '@clat/wasm-guest-sdk';
import { countWords } from './count-words.js';

const wordCount = defineTool<{ text: string }>({
  name: 'word_count',
  description: 'Counts the words of a text',
  effect: 'pure',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to count' } },
    required: ['text'],
    additionalProperties: false,
  },
  run: ({ text }) => ({ words: countWords(text) }),
});

export const tools = definePlugin({ tools: [wordCount] });
`,
    'README.md': `# ${name}

A CLAT plugin written in TypeScript and compiled into a WebAssembly component
(\`src/plugin.ts\`, built with \`@clat/wasm-guest-sdk\`). Its tool \`word_count\` counts the words
of a text. \`clat-plugin.json\` is the source manifest: the build writes \`dist/clat-plugin.json\`
with the component's computed SHA-256, so \`dist/\` is the installable package.

\`\`\`sh
npm install
npm run build        # typecheck, then componentize: dist/plugin.wasm + dist/clat-plugin.json
npm test             # unit tests (vitest)
clat plugin install . --accept-capabilities  # installs dist
clat trust && clat call ${tool} '{"text":"hello plugin world"}'
\`\`\`

If \`npm install\` cannot find the \`@clat/\` packages (they are not on the public npm registry
yet), pack them from a checkout of CLAT (after its README's set-up there, \`npx -y pnpm@10.34.9 install --frozen-lockfile && npx pnpm build\`) and install
the tarballs first:

\`\`\`sh
rm -rf ~/clat-sdk-wasm
for p in wasm-guest-sdk; do (cd <clat-checkout>/packages/$p && npx pnpm pack --pack-destination ~/clat-sdk-wasm); done
npm install ~/clat-sdk-wasm/*.tgz
\`\`\`

Declare every host capability the guest uses (\`host.callTool\`, \`sampling\`, ...) under
\`capabilities\` in \`clat-plugin.json\`; CLAT refuses undeclared ones.
`,
  };
}
