/**
 * The wire names of CLAT's MCP extension: the `io.artec.clat/*` host-service methods, the
 * capability CLAT advertises under `experimental`, and the `_meta` keys of DSH system prompts.
 * The semantics (HostServices, the snapshot schema) are the kernel's contract.
 * @module
 */
import { HOST_SERVICES_VERSION } from '@clat/kernel';

export const HOST_SERVICES_EXTENSION = 'io.artec.clat/hostServices';

export const HostServicesMethod = {
  contextGet: 'io.artec.clat/context/get',
  toolsCall: 'io.artec.clat/tools/call',
  contextChanged: 'io.artec.clat/context/changed',
} as const;

/** The capability CLAT advertises (client) and expects echoed (server) under `experimental`. */
export const HOST_SERVICES_CAPABILITY = {
  version: HOST_SERVICES_VERSION,
  methods: Object.values(HostServicesMethod),
} as const;

/** `_meta` key marking a DSH system-prompt contribution on prompts/list. */
export const DSH_SYSTEM_PROMPT_META = 'io.artec.clat/dshSystemPrompt';
/** `_meta` key carrying the resolved system prompt text on prompts/get. */
export const SYSTEM_PROMPT_META = 'io.artec.clat/systemPrompt';
