/** `clat plugin new mcp <name>`: a plain MCP stdio server on @modelcontextprotocol/server. @module */
import {
  COUNT_WORDS_TEST_TS,
  COUNT_WORDS_TS,
  GITIGNORE,
  packageJson,
  type ScaffoldFiles,
  TSCONFIG_JSON,
} from './common-files.js';
import { SCAFFOLD_VERSIONS as V } from './sdk-versions.js';

const PACKAGE_SCRIPT = `#!/usr/bin/env node
// Builds the installable package dist/package: the server bundled into one executable file, and
// clat-plugin.json with that file's computed SHA-256 (never edit the digest by hand).
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';

const out = 'dist/package';
// The manifest is checked before the last build is removed: a mistake keeps it, and is named.
const fail = (why) => {
  process.stderr.write(\`clat-plugin.json: \${why}\\n\`);
  process.exit(1);
};
let manifest;
try {
  manifest = JSON.parse(await readFile('clat-plugin.json', 'utf8'));
} catch (error) {
  fail(\`cannot be read as JSON (\${error.message})\`);
}
const name = manifest?.runtime?.entry;
if (typeof name !== 'string' || !/^[\\w.-]+$/.test(name) || name.startsWith('.')) {
  fail('runtime.entry must be a file name in the package, such as "server.mjs"');
}
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const entry = \`\${out}/\${name}\`;
const { build } = await import('esbuild');
await build({
  entryPoints: ['src/main.ts'],
  outfile: entry,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  banner: {
    js: "#!/usr/bin/env node\\nimport { createRequire } from 'node:module';\\nconst require = createRequire(import.meta.url);",
  },
});
await chmod(entry, 0o755);
manifest.runtime.sha256 = createHash('sha256').update(await readFile(entry)).digest('hex');
await writeFile(\`\${out}/clat-plugin.json\`, \`\${JSON.stringify(manifest, null, 2)}\\n\`);
process.stdout.write(\`\${out}: \${manifest.runtime.entry} sha256 \${manifest.runtime.sha256}\\n\`);
`;

export function mcpTemplate(name: string, tool: string): ScaffoldFiles {
  return {
    'package.json': packageJson({
      name,
      version: '0.1.0',
      private: true,
      description: `${name}: a CLAT plugin (MCP stdio server)`,
      type: 'module',
      license: 'MIT',
      engines: { node: '>=20.19' },
      // "clat plugin install ." installs this build output.
      clat: { package: 'dist/package' },
      scripts: {
        build: 'tsc && node scripts/package.mjs',
        test: 'vitest run',
      },
      dependencies: {
        '@modelcontextprotocol/server': V['@modelcontextprotocol/server'],
        zod: V.zod,
      },
      devDependencies: {
        '@types/node': V['@types/node'],
        esbuild: V.esbuild,
        typescript: V.typescript,
        vitest: V.vitest,
      },
    }),
    'clat-plugin.json': `${JSON.stringify(
      {
        manifestVersion: 1,
        id: name,
        name,
        version: '0.1.0',
        description: 'Counts words (a CLAT MCP plugin)',
        runtime: { kind: 'mcp-stdio', entry: 'server.mjs' },
        capabilities: { tools: true },
      },
      null,
      2,
    )}\n`,
    'scripts/package.mjs': PACKAGE_SCRIPT,
    'tsconfig.json': TSCONFIG_JSON,
    '.gitignore': GITIGNORE,
    'src/count-words.ts': COUNT_WORDS_TS,
    'src/count-words.test.ts': COUNT_WORDS_TEST_TS,
    'src/server.ts': `/** The ${name} MCP server: one tool, described by a zod schema. */
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { countWords } from './count-words.js';

export function createServer(): McpServer {
  const server = new McpServer({ name: '${name}', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'word_count',
    {
      description: 'Counts the words of a text',
      inputSchema: z.object({ text: z.string().describe('The text to count') }),
      // Read-only and closed-world: CLAT maps this to its ExternalRead effect.
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ text }) => ({
      content: [{ type: 'text', text: JSON.stringify({ words: countWords(text) }) }],
    }),
  );
  return server;
}
`,
    'src/main.ts': `/** Entry point: serve over stdio (both MCP protocol eras). */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createServer } from './server.js';

serveStdio(() => createServer(), {
  onerror: (error) => process.stderr.write(\`${name}: \${error.message}\\n\`),
});
`,
    'README.md': `# ${name}

A plain MCP server (\`src/server.ts\`, on the official \`@modelcontextprotocol/server\`) packaged
for CLAT. Its tool \`word_count\` counts the words of a text. \`clat-plugin.json\` is the source
manifest; the build bundles the server into \`dist/package/server.mjs\` and writes
\`dist/package/clat-plugin.json\` with its computed SHA-256.

\`\`\`sh
npm install
npm run build        # typecheck, then bundle: dist/package (executable entry + manifest)
npm test             # unit tests (vitest)
clat plugin install . --accept-capabilities  # installs dist/package
clat trust && clat call ${tool} '{"text":"hello plugin world"}'
\`\`\`

Any MCP client can run it too: \`node dist/package/server.mjs\` speaks MCP on stdio.
`,
  };
}
