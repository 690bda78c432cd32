/**
 * The main-thread side of a WASM guest's host imports: each import checked against the
 * manifest's capability ceiling, then served by the HostServices port.
 * @module
 */
import {
  type ElicitationForm,
  type HostCaller,
  KernelErrorCode,
  type SamplingRequest,
} from '@clat/kernel';
import { WasmErrorCode } from './errors.js';
import type { MountWasmPluginOptions } from './mount.js';

/**
 * The refusal a guest gets for an import its manifest did not declare, with the declaration that
 * grants it: found only at the call (every guest imports the whole host interface), so the
 * message is where its author learns what to write.
 */
function denyCapability(plugin: string, capability: string): never {
  const tool = capability.startsWith('hostTools.') ? capability.slice('hostTools.'.length) : '';
  const declaration =
    tool === '' ? `"${capability}": true` : `"hostTools": [${JSON.stringify(tool)}]`;
  throw `${WasmErrorCode.WASM_CAPABILITY_NOT_DECLARED}: plugin ${JSON.stringify(plugin)} does not declare capability \`${capability}\`; its clat-plugin.json needs "capabilities": {${declaration}} (an installed plugin then takes it with clat plugin update <its package> --accept-capabilities)`;
}

function toSamplingRequest(raw: unknown): SamplingRequest {
  const request = raw as {
    systemPrompt?: string;
    messages: { role: 'user' | 'assistant'; text: string }[];
    maxTokens: bigint | number;
    temperature?: number;
  };
  const max = BigInt(request.maxTokens);
  return {
    messages: request.messages.map((message) => ({ role: message.role, text: message.text })),
    maxTokens: Number(max > 0xffffffffn ? 0xffffffffn : max),
    ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
  };
}

function toElicitationForm(raw: unknown): ElicitationForm {
  const form = raw as ElicitationForm;
  return {
    message: form.message,
    fields: form.fields.map((field) => ({
      name: field.name,
      kind: field.kind,
      options: [...field.options],
      required: field.required,
      ...(field.title === undefined ? {} : { title: field.title }),
      ...(field.description === undefined ? {} : { description: field.description }),
      ...(field.default === undefined ? {} : { default: field.default }),
    })),
  };
}

/** Builds the main-thread side of the guest's host imports. */
export function hostImportsFor(options: MountWasmPluginOptions) {
  const { name, hostServices: host, capabilities } = options;
  const caller: HostCaller = { kind: 'wasm', id: name };
  const configJson = options.config === undefined ? undefined : JSON.stringify(options.config);
  return async (iface: string, fn: string, args: unknown[], signal: AbortSignal) => {
    switch (`${iface}.${fn}`) {
      case 'host.context':
        if (capabilities !== undefined && !capabilities.hostContext) {
          denyCapability(name, 'hostContext');
        }
        return JSON.stringify(await host.context(caller));
      case 'host.callTool': {
        const [tool, argsJson] = args as [string, string];
        if (capabilities !== undefined && !capabilities.hostTools.includes(tool)) {
          denyCapability(name, `hostTools.${tool}`);
        }
        let parsed: unknown;
        try {
          parsed = argsJson.trim() === '' ? {} : JSON.parse(argsJson);
        } catch {
          throw `${KernelErrorCode.HOST_INVALID_REQUEST}: arguments of host tool ${JSON.stringify(tool)} are not valid JSON`;
        }
        const result = await host.callTool(caller, tool, parsed, signal);
        return JSON.stringify(result ?? null);
      }
      case 'sampling.createMessage':
        if (capabilities !== undefined && !capabilities.sampling) denyCapability(name, 'sampling');
        return host.createMessage(caller, toSamplingRequest(args[0]), signal);
      case 'elicitation.elicit':
        if (capabilities !== undefined && !capabilities.elicitation) {
          denyCapability(name, 'elicitation');
        }
        return host.elicit(caller, toElicitationForm(args[0]), signal);
      case 'config.get':
        if (configJson === undefined)
          throw `no configuration is set for plugin ${JSON.stringify(name)}`;
        return configJson;
      default:
        throw `unknown host import ${iface}.${fn}`;
    }
  };
}
