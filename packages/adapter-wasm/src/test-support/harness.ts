import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  createGlobalScope,
  PluginHostBridge,
  RunEventStream,
  ToolPipeline,
  ToolRegistry,
} from '@clat/kernel';
import { wasmCacheDir } from '../component-cache.js';
import { buildFixtureComponent } from './build-wat.js';

/** A kernel world (registry, pipeline, bridge, scopes) around temporary project and CLAT home dirs. */
export function createHarness() {
  const root = mkdtempSync(join(tmpdir(), 'clat-wasm-'));
  const projectRoot = join(root, 'project');
  const clatHome = join(root, 'home');
  const registry = new ToolRegistry();
  const events = new RunEventStream();
  const pipeline = new ToolPipeline({ registry, events });
  const bridge = new PluginHostBridge({ projectRoot, pipeline });
  const global = createGlobalScope('test');
  const scope = global.child('project');
  // A real native read_file over the project directory, for host.call-tool.
  registry.register(
    {
      definition: {
        name: 'read_file',
        description: 'Reads a project file',
        inputSchema: { type: 'object' },
        effect: 'read',
        source: { kind: 'native', id: '' },
      },
      async invoke(args) {
        const path = resolve(projectRoot, String(args.path));
        if (!path.startsWith(projectRoot)) return { content: 'outside project', isError: true };
        const content = readFileSync(path, 'utf8');
        return { content, structured: { path: String(args.path), content } };
      },
    },
    global,
  );
  return {
    root,
    projectRoot,
    clatHome,
    registry,
    events,
    pipeline,
    bridge,
    scope,
    /** The options every mount in this world shares: plugin `name` in a plugin scope of its own. */
    mountOptions(name: string) {
      return {
        name,
        registry,
        scope: scope.pluginScope(name),
        hostServices: bridge,
        projectRoot,
        clatHome,
      };
    },
    async dispose() {
      await global.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * A harness whose project directory exists, with the fixture component written to
 * `<root>/<file>` and the CLAT home's default module cache.
 */
export async function createComponentHarness(file = 'plugin.wasm') {
  const h = createHarness();
  mkdirSync(h.projectRoot, { recursive: true });
  const componentPath = join(h.root, file);
  writeFileSync(componentPath, await buildFixtureComponent());
  return { h, componentPath, cacheDir: wasmCacheDir(h.clatHome) };
}
