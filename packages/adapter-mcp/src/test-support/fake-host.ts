/**
 * A recording HostServices for unit tests; each method can be replaced to inject a fault or hold
 * a request pending. End-to-end tests use the kernel's real PluginHostBridge instead.
 * @module
 */
import type {
  ElicitationOutcome,
  HostCaller,
  HostContextSnapshot,
  HostServices,
  SamplingOutcome,
} from '@clat/kernel';

export interface HostCall {
  method: 'context' | 'callTool' | 'createMessage' | 'elicit';
  caller: HostCaller;
  args: unknown[];
  signal: AbortSignal | undefined;
}

export type FakeHost = HostServices & {
  calls: HostCall[];
  listeners: ((snapshot: HostContextSnapshot | null) => void)[];
  /** Replace to hold or fail a sampling request. */
  sampling: (signal: AbortSignal) => Promise<SamplingOutcome>;
  elicitation: (signal: AbortSignal) => Promise<ElicitationOutcome>;
  push(snapshot: HostContextSnapshot | null): void;
};

export const SNAPSHOT: HostContextSnapshot = {
  protocolVersion: '0.1.0',
  project: { root: '/project' },
  run: null,
  hostTools: ['read_file'],
};

export function fakeHost(): FakeHost {
  const host: FakeHost = {
    calls: [],
    listeners: [],
    sampling: async () => ({ text: 'answer', model: 'm1', stopReason: 'endTurn' }),
    elicitation: async () => ({ tag: 'declined' }),
    async context(caller) {
      host.calls.push({ method: 'context', caller, args: [], signal: undefined });
      return SNAPSHOT;
    },
    async callTool(caller, name, args, signal) {
      host.calls.push({ method: 'callTool', caller, args: [name, args], signal });
      return { ok: true, name };
    },
    async createMessage(caller, request, signal) {
      host.calls.push({ method: 'createMessage', caller, args: [request], signal });
      return host.sampling(signal);
    },
    async elicit(caller, form, signal, ...rest: unknown[]) {
      host.calls.push({ method: 'elicit', caller, args: [form, ...rest], signal });
      return host.elicitation(signal);
    },
    subscribeContext(_caller, listener) {
      host.listeners.push(listener);
      return () => {
        const index = host.listeners.indexOf(listener);
        if (index !== -1) host.listeners.splice(index, 1);
      };
    },
    push(snapshot) {
      for (const listener of [...host.listeners]) listener(snapshot);
    },
  };
  return host;
}
