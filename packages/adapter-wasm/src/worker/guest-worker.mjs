// One guest instance in a worker thread. Host imports (host, sampling, elicitation, config) are
// synchronous for the guest: the worker posts the request on a dedicated port, parks in
// Atomics.wait, and reads the main thread's answer with receiveMessageOnPort. terminate() still
// stops a parked or spinning guest, which is how time budgets and cancellation work.
// Warm tool calls come through the call slot (call-slot.mjs): between calls the worker spins
// briefly, then waits in Atomics.wait, and only after a stretch of idleness (or of continuous
// work) does it return to its event loop, so queued tasks (finalizers, GC work) and messages
// still run.
import { performance } from 'node:perf_hooks';
import { Script } from 'node:vm';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import {
  ARGS_BYTES,
  awaitRequest,
  callSlotOf,
  changesWithin,
  NAME_BYTES,
  REQUEST_KIND,
  REQUEST_PORT,
  REQUEST_SEQ,
  RESULT_BYTES,
  RESULT_ERR,
  RESULT_KIND,
  RESULT_MESSAGE,
  RESULT_OK,
  RESULT_SEQ,
  RESULT_TRAP,
  readSlotText,
  writeSlotText,
} from './call-slot.mjs';
import { GLUE_SCRIPT_HEAD_LINES, glueScript, withoutDebugLog } from './glue-script.mjs';
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

const { hostPort, signalBuffer, callBuffer, callPort, preopens, outputLimitBytes } = workerData;
const signal = new Int32Array(signalBuffer);
/** Never notified: waiting on it is a sleep. */
const nap = new Int32Array(new SharedArrayBuffer(4));
const slot = callSlotOf(callBuffer);
const slotHeader = slot.header;
/**
 * How long a worker that just finished a call spins for the next one before it sleeps (and a
 * guest waiting on a host call for its answer). A guest
 * call right after its thread slept, even for 20 µs, ran about 60% slower (a small SpiderMonkey
 * call: 58 vs 36 µs p50 on Node 20, 2-core VM) than one on a thread that stayed busy; back-to-back
 * calls arrive well within this, and a burst's last call costs at most this much CPU.
 */
const SPIN_MS = 0.1;
/** How long an idle worker waits in Atomics.wait before parking in its event loop. */
const IDLE_WAIT_MS = 50;
/** Longest stretch of back-to-back calls before the event loop gets a turn. */
const SLICE_MS = 20;
/** The last call number served. */
let served = 0;
/** Set when the guest writes output: the result must then follow that output's messages. */
let wroteOutput = false;
/**
 * What the guest writes to stderr while it lists its tools (its last few KiB), else undefined: a
 * guest that traps there has printed why (StarlingMonkey prints the exception before it aborts).
 */
let listingStderr;
const LISTING_STDERR_CHARS = 4096;
const memories = [];
// The worker boots while the host prepares the component (reads and verifies its cache entry),
// and parses the glue while the host may still be compiling the core modules. Each comes in
// workerData, or in a message (`glue`, `modules`) when the host did not have it at spawn.
/** Resolvers of what the host did not have at spawn, by the type of the message bringing it. */
const awaited = new Map();
/** `value` from workerData, or `field` of the host's first message of `type`. */
function fromHost(value, type, field) {
  if (value !== undefined) return Promise.resolve(value);
  return new Promise((resolve) => {
    awaited.set(type, (message) => resolve(message[field]));
  });
}
/** The glue's compiled script, when it loaded as one and no code cache of it was usable. */
let uncachedScript;
const glue = fromHost(workerData.glue, 'glue', 'glue').then(loadGlue);
glue.catch(() => {});
const modulesReady = fromHost(workerData.modules, 'modules', 'modules');
let tools;

/**
 * The glue's exports, its debug logger made a no-op: from its classic script (glue-script.mjs)
 * with the host's code cache when V8 takes it, else from the glue as an ES module (a glue of
 * another shape, or a script V8 does not compile).
 */
async function loadGlue({ source: verified, codeCache }) {
  const source = withoutDebugLog(verified);
  const script = glueScript(source);
  if (script !== undefined) {
    let compiled;
    try {
      compiled = new Script(script, {
        filename: 'clat-guest-glue.js',
        lineOffset: -GLUE_SCRIPT_HEAD_LINES,
        cachedData: codeCache,
      });
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
    }
    if (compiled !== undefined) {
      if (codeCache === undefined || compiled.cachedDataRejected === true)
        uncachedScript = compiled;
      return { instantiate: compiled.runInThisContext()() };
    }
  }
  return import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`);
}

function post(message) {
  parentPort.postMessage(message);
}

/** The next message of `port`, posted before a wake-up that may outrun it into the queue. */
function receiveWaiting(port) {
  for (let attempt = 0; ; attempt++) {
    const received = receiveMessageOnPort(port);
    if (received !== undefined) return received.message;
    Atomics.wait(nap, 0, 0, attempt < 100 ? 0.01 : 1);
  }
}

/** A synchronous call into the main thread; returns `{ tag: 'ok' | 'err', val }` for jco. */
function hostCall(iface, fn, args) {
  Atomics.store(signal, 0, 0);
  hostPort.postMessage({ iface, fn, args });
  // The guest resumes right after the answer: spin first, as between calls (SPIN_MS). A late
  // notify meant for the previous answer is slept through (see awaitRequest).
  if (!changesWithin(signal, 0, 0, SPIN_MS)) {
    while (Atomics.load(signal, 0) === 0) Atomics.wait(signal, 0, 0);
  }
  return receiveWaiting(hostPort);
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
    onOutput: (stream, text) => {
      wroteOutput = true;
      if (listingStderr !== undefined && stream === 'stderr') {
        listingStderr = (listingStderr + text).slice(-LISTING_STDERR_CHARS);
      }
      post({ type: 'output', stream, text });
    },
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

// Also keeps the worker alive while it is parked between calls.
parentPort.on('message', (message) => {
  awaited.get(message.type)?.(message);
});

/** The step a failed start was in; list-tools gets its own report (worker-messages.ts). */
let step = 'instantiate';
try {
  tools = await start();
  step = 'list-tools';
  listingStderr = '';
  const listed = tools.listTools();
  step = 'ready';
  listingStderr = undefined;
  const definitions = listed.map((definition) => ({
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    effect: definition.effect,
  }));
  post({
    type: 'ready',
    tools: definitions,
    memoryBytes: memoryBytes(),
    glueCodeCache: uncachedScript !== undefined,
  });
  // After the start, so the functions it compiled lazily are in the cache too.
  if (uncachedScript !== undefined) {
    const data = uncachedScript.createCachedData();
    uncachedScript = undefined;
    post({ type: 'glue-code-cache', data });
  }
  park();
} catch (error) {
  post({
    type: 'start-failed',
    message: describe(error),
    ...(step === 'list-tools'
      ? {
          listTools: {
            trapped: error instanceof WebAssembly.RuntimeError,
            stderr: listingStderr ?? '',
          },
        }
      : {}),
  });
}

/** Serves calls from the slot until idle (then parks) or until the slice is used up. */
function serve() {
  const sliceEnd = performance.now() + SLICE_MS;
  for (;;) {
    if (!awaitRequest(slotHeader, served, SPIN_MS, IDLE_WAIT_MS)) {
      park();
      return;
    }
    call();
    if (performance.now() >= sliceEnd) {
      setImmediate(serve);
      return;
    }
  }
}

/** Waits for the next call from the event loop, which runs meanwhile. */
function park() {
  const next = Atomics.waitAsync(slotHeader, REQUEST_SEQ, served);
  // serve() looks at the call number itself: a wake-up without a new call only costs a wait.
  if (next.async) next.value.then(serve);
  else setImmediate(serve);
}

function call() {
  served = Atomics.load(slotHeader, REQUEST_SEQ);
  let name;
  let argsJson;
  if (slotHeader[REQUEST_KIND] === REQUEST_PORT) {
    ({ name, argsJson } = receiveWaiting(callPort));
  } else {
    const nameBytes = slotHeader[NAME_BYTES];
    name = readSlotText(slot, 0, nameBytes);
    argsJson = readSlotText(slot, nameBytes, slotHeader[ARGS_BYTES]);
  }
  wroteOutput = false;
  let kind;
  let value;
  try {
    const returned = tools.call(name, argsJson);
    kind = RESULT_OK;
    value = typeof returned === 'string' ? returned : String(returned);
  } catch (error) {
    const payload = errPayload(error);
    // A trap poisons the instance ("cannot enter component instance"); the host recycles it.
    kind = payload === undefined ? RESULT_TRAP : RESULT_ERR;
    value = payload ?? describe(error);
  }
  const memory = memoryBytes();
  const bytes = wroteOutput ? -1 : writeSlotText(slot, 0, value);
  if (bytes >= 0) {
    slotHeader[RESULT_KIND] = kind;
    slotHeader[RESULT_BYTES] = bytes;
    slot.memory[0] = memory;
  } else {
    const outcome = kind === RESULT_OK ? 'ok' : kind === RESULT_ERR ? 'err' : 'trap';
    post({ type: 'result', id: served, outcome, value, memoryBytes: memory });
    slotHeader[RESULT_KIND] = RESULT_MESSAGE;
  }
  Atomics.store(slotHeader, RESULT_SEQ, served);
  Atomics.notify(slotHeader, RESULT_SEQ);
}
