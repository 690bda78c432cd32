// One guest instance in a worker thread. Host imports (host, sampling, elicitation, config) are
// synchronous for the guest: the worker posts the request on a dedicated port, parks in
// Atomics.wait, and reads the main thread's answer with receiveMessageOnPort. terminate() still
// stops a parked or spinning guest, which is how time budgets and cancellation work.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { createSandboxWasi } from './wasi-sandbox.mjs';

// The worker runs with an empty environment (`env: {}`), but `process.env` is still Node's
// interceptor object: every property read crosses into C++ and takes a lock. jco's glue checks
// `globalThis.process.env.JCO_DEBUG` in `_debugLog` about 170 times per tool call, which cost
// more than the guest's own work. A frozen empty plain object answers the same (nothing) at a
// plain property miss.
Object.defineProperty(process, 'env', {
  value: Object.freeze(Object.create(null)),
  writable: false,
  configurable: false,
  enumerable: true,
});

const { glueUrl, hostPort, signalBuffer, preopens, outputLimitBytes } = workerData;
const signal = new Int32Array(signalBuffer);
const memories = [];
// The glue is parsed while the host may still be compiling the core modules; those come in
// workerData, or in the first message when the host had not finished compiling at spawn.
const glue = import(glueUrl);
glue.catch(() => {});
let deliverModules;
const modulesReady =
  workerData.modules !== undefined
    ? Promise.resolve(workerData.modules)
    : new Promise((resolve) => {
        deliverModules = resolve;
      });
let tools;

function post(message) {
  parentPort.postMessage(message);
}

/** A synchronous call into the main thread; returns `{ tag: 'ok' | 'err', val }` for jco. */
function hostCall(iface, fn, args) {
  Atomics.store(signal, 0, 0);
  hostPort.postMessage({ iface, fn, args });
  Atomics.wait(signal, 0, 0);
  // The answer is posted before the wake-up, but may need a moment to reach this port's queue.
  for (let attempt = 0; ; attempt++) {
    const received = receiveMessageOnPort(hostPort);
    if (received !== undefined) return received.message;
    Atomics.wait(signal, 0, 1, attempt < 100 ? 0.01 : 1);
  }
}

const hostImports = {
  'clat:plugin/types': {},
  'clat:plugin/host': {
    context: () => hostCall('host', 'context', []),
    callTool: (name, argsJson) => hostCall('host', 'callTool', [name, argsJson]),
  },
  'clat:plugin/sampling': {
    createMessage: (request) => hostCall('sampling', 'createMessage', [request]),
  },
  'clat:plugin/elicitation': {
    elicit: (form) => hostCall('elicitation', 'elicit', [form]),
  },
  'clat:plugin/config': {
    get: () => hostCall('config', 'get', []),
  },
};

function memoryBytes() {
  let total = 0;
  for (const memory of memories) total += memory.buffer.byteLength;
  return total;
}

/** An export's err(..) arrives as a thrown string (or a ComponentError carrying one). */
function errPayload(error) {
  if (typeof error === 'string') return error;
  if (
    error !== null &&
    typeof error === 'object' &&
    Object.hasOwn(error, 'payload') &&
    typeof error.payload === 'string'
  ) {
    return error.payload;
  }
  return undefined;
}

function describe(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

async function start() {
  const wasi = createSandboxWasi({
    preopens,
    outputLimitBytes,
    onOutput: (stream, text) => post({ type: 'output', stream, text }),
  });
  const { instantiate } = await glue;
  const modules = await modulesReady;
  const root = await instantiate(
    (name) => {
      const module = modules[name];
      if (module === undefined) throw new Error(`core module ${name} was not compiled`);
      return module;
    },
    { ...wasi, ...hostImports },
    async (module, imports) => {
      const instance = await WebAssembly.instantiate(module, imports);
      for (const value of Object.values(instance.exports)) {
        if (value instanceof WebAssembly.Memory) memories.push(value);
      }
      return instance;
    },
  );
  const tools = root.tools ?? root['clat:plugin/tools@0.1.0'];
  if (tools === undefined) throw new Error('the component does not export clat:plugin/tools');
  return tools;
}

parentPort.on('message', (message) => {
  if (message.type === 'modules') deliverModules?.(message.modules);
  else if (message.type === 'call' && tools !== undefined) call(message);
});

try {
  tools = await start();
  const definitions = tools.listTools().map((definition) => ({
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    effect: definition.effect,
  }));
  post({ type: 'ready', tools: definitions, memoryBytes: memoryBytes() });
} catch (error) {
  post({ type: 'start-failed', message: describe(error) });
}

function call(message) {
  try {
    const value = tools.call(message.name, message.argsJson);
    post({ type: 'result', id: message.id, outcome: 'ok', value, memoryBytes: memoryBytes() });
  } catch (error) {
    const payload = errPayload(error);
    if (payload !== undefined) {
      post({
        type: 'result',
        id: message.id,
        outcome: 'err',
        value: payload,
        memoryBytes: memoryBytes(),
      });
    } else {
      // A trap poisons the instance ("cannot enter component instance"); the host recycles it.
      post({
        type: 'result',
        id: message.id,
        outcome: 'trap',
        value: describe(error),
        memoryBytes: memoryBytes(),
      });
    }
  }
}
