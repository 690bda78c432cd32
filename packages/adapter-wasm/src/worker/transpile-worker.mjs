// Transpiles one component with jco in a worker, so the 1-2 s of synchronous wasm work never
// blocks the host's event loop. Input: workerData.bytes. Output: one message.
import { parentPort, workerData } from 'node:worker_threads';
import { transpileBytes } from '@bytecodealliance/jco-transpile';

try {
  const result = await transpileBytes(workerData.bytes, {
    name: 'plugin',
    instantiation: 'async',
    wasiShim: false,
    nodejsCompat: false,
  });
  const files = {};
  for (const [name, bytes] of Object.entries(result.files)) {
    if (name === 'plugin.js' || name.endsWith('.wasm')) files[name] = bytes;
  }
  parentPort.postMessage({ ok: true, files, imports: result.imports, exports: result.exports });
} catch (error) {
  parentPort.postMessage({
    ok: false,
    message: error instanceof Error ? error.message : String(error),
  });
}
