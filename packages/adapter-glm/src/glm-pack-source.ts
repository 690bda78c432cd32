/**
 * The GLM Coding Plan pack as a mount source: its servers (origin `glm-pack`) for an active GLM
 * provider, none otherwise. A name taken before the pack wins over the pack's server.
 * @module
 */
import { mcpEntry } from '@clat/adapter-mcp';
import type { MountSource } from '@clat/kernel';
import { describeGlmPack, type GlmProviderDescriptor, mergeGlmPack } from './glm-pack.js';

export interface GlmPackSourceOptions {
  /** The active model provider; `undefined` when none is configured. */
  provider: GlmProviderDescriptor | undefined;
}

/**
 * The pack's servers that no earlier name replaced. While the pack is on, its notes say which
 * servers it added and which a same-named entry replaced (never the key).
 */
export function glmPackSource(options: GlmPackSourceOptions): MountSource {
  const { provider } = options;
  return {
    label: 'GLM pack server',
    async collect(ctx) {
      const merge = mergeGlmPack(provider, [], { reservedNames: ctx.taken });
      return {
        entries: merge.servers.map(mcpEntry),
        issues: [],
        notes: merge.status.active ? describeGlmPack(merge) : [],
        prompts: [],
      };
    },
  };
}
