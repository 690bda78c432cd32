/**
 * The GLM Coding Plan pack: four provider-supplied MCP servers merged, in memory, into the user's
 * servers at project mount. A pure function of the active provider and the parsed mcp.json: it
 * reads no file, writes no file, and is evaluated once per mount.
 * @module
 */
import type { McpServerConfig } from '@clat/adapter-mcp';

/** What the pack needs to know about the active model provider. */
export interface GlmProviderDescriptor {
  /** Vendor label of the provider config (`glm`, `zai`, …), compared case-insensitively. */
  vendor?: string | undefined;
  /** Endpoint of the provider, used when the vendor label is missing. */
  baseUrl?: string | undefined;
  /** The first model credential. The pack is empty without one. */
  apiKey?: string | undefined;
}

/** Which Z.AI platform serves the key: mainland (open.bigmodel.cn) or international (api.z.ai). */
export type GlmPlatform = 'bigmodel' | 'zai';

const PLATFORM_ORIGIN: Readonly<Record<GlmPlatform, string>> = {
  bigmodel: 'https://open.bigmodel.cn',
  zai: 'https://api.z.ai',
};

/** The four pack servers, in mount order, with the tools each provides (for /mcp). */
export const GLM_PACK_SERVERS = [
  {
    name: 'glm-search',
    transport: 'http',
    path: '/api/mcp/web_search_prime/mcp',
    tools: ['webSearchPrime'],
  },
  { name: 'glm-reader', transport: 'http', path: '/api/mcp/web_reader/mcp', tools: ['webReader'] },
  {
    name: 'glm-zread',
    transport: 'http',
    path: '/api/mcp/zread/mcp',
    tools: ['search_doc', 'get_repo_structure', 'read_file'],
  },
  {
    name: 'glm-vision',
    transport: 'stdio',
    command: 'npx',
    args: ['-y', '@z_ai/mcp-server@latest'],
    tools: ['screenshot/code, OCR, diagram/chart and video tools'],
  },
] as const;

export type GlmPackServerName = (typeof GLM_PACK_SERVERS)[number]['name'];

/** Environment variable @z_ai/mcp-server reads the key from. */
const GLM_VISION_KEY_ENV = 'Z_AI_API_KEY';
/** Environment variable that points @z_ai/mcp-server at api.z.ai instead of open.bigmodel.cn. */
const GLM_VISION_MODE_ENV = 'Z_AI_MODE';

export const GLM_PACK_ORIGIN = 'glm-pack';

/** Why the pack is (in)active, safe to show. Never carries the key. */
export type GlmPackStatus =
  | { active: true; platform: GlmPlatform }
  | { active: false; reason: 'not-glm-provider' | 'no-api-key' };

export interface GlmPackMerge {
  /** User servers first (in their order), then the pack servers no user entry replaced. */
  servers: McpServerConfig[];
  status: GlmPackStatus;
  /** Pack servers added. */
  added: GlmPackServerName[];
  /** Pack servers a same-named user entry (or reserved name) replaced. */
  overridden: GlmPackServerName[];
}

const HOSTS: Readonly<Record<string, GlmPlatform>> = {
  'open.bigmodel.cn': 'bigmodel',
  'api.z.ai': 'zai',
};

/** The platform of a GLM Coding Plan provider, or undefined for any other provider. */
export function glmPlatformOf(provider: GlmProviderDescriptor): GlmPlatform | undefined {
  const vendor = provider.vendor?.trim().toLowerCase();
  let host: GlmPlatform | undefined;
  if (provider.baseUrl !== undefined) {
    try {
      const url = new URL(provider.baseUrl);
      const platform = HOSTS[url.hostname.toLowerCase()];
      if (platform !== undefined && url.pathname.includes('/coding/')) host = platform;
    } catch {
      host = undefined;
    }
  }
  if (vendor === 'glm') return host ?? 'bigmodel';
  if (vendor === 'zai' || vendor === 'z.ai') return host ?? 'zai';
  if (vendor === undefined || vendor === '') return host;
  return undefined;
}

/** Whether the pack applies, and why not. */
export function glmPackStatus(provider: GlmProviderDescriptor | undefined): GlmPackStatus {
  const platform = provider === undefined ? undefined : glmPlatformOf(provider);
  if (platform === undefined) return { active: false, reason: 'not-glm-provider' };
  if ((provider?.apiKey?.trim() ?? '') === '') return { active: false, reason: 'no-api-key' };
  return { active: true, platform };
}

/**
 * The pack's server configs for an active GLM Coding Plan provider; empty otherwise. The key
 * travels in the HTTP `Authorization` header and the vision server's environment, in memory only.
 */
export function glmPackServers(provider: GlmProviderDescriptor | undefined): McpServerConfig[] {
  const status = glmPackStatus(provider);
  if (!status.active) return [];
  const key = (provider?.apiKey ?? '').trim();
  const origin = PLATFORM_ORIGIN[status.platform];
  return GLM_PACK_SERVERS.map((entry): McpServerConfig => {
    if (entry.transport === 'http') {
      return {
        transport: 'http',
        type: 'http',
        name: entry.name,
        origin: GLM_PACK_ORIGIN,
        url: `${origin}${entry.path}`,
        headers: { Authorization: `Bearer ${key}` },
      };
    }
    const env: Record<string, string> = { [GLM_VISION_KEY_ENV]: key };
    if (status.platform === 'zai') env[GLM_VISION_MODE_ENV] = 'ZAI';
    return {
      transport: 'stdio',
      name: entry.name,
      origin: GLM_PACK_ORIGIN,
      command: entry.command,
      args: [...entry.args],
      env,
    };
  });
}

export interface MergeGlmPackOptions {
  /** Further names that win over the pack (installed package ids). */
  reservedNames?: Iterable<string> | undefined;
}

/**
 * Merges the pack into the user's parsed mcp.json servers. A same-named user entry (or a reserved
 * name) wins over a pack server; the user's entries are returned unchanged and first.
 */
export function mergeGlmPack(
  provider: GlmProviderDescriptor | undefined,
  userServers: readonly McpServerConfig[],
  options: MergeGlmPackOptions = {},
): GlmPackMerge {
  const status = glmPackStatus(provider);
  const taken = new Set<string>([
    ...userServers.map((s) => s.name),
    ...(options.reservedNames ?? []),
  ]);
  const added: GlmPackServerName[] = [];
  const overridden: GlmPackServerName[] = [];
  const pack: McpServerConfig[] = [];
  for (const server of glmPackServers(provider)) {
    const name = server.name as GlmPackServerName;
    if (taken.has(name)) overridden.push(name);
    else {
      added.push(name);
      pack.push(server);
    }
  }
  return { servers: [...userServers, ...pack], status, added, overridden };
}

/** One line per pack decision for /mcp and logs; names servers and hosts, never the key. */
export function describeGlmPack(merge: GlmPackMerge): string[] {
  if (!merge.status.active) {
    return [
      merge.status.reason === 'no-api-key'
        ? 'GLM Coding Plan pack: off (the GLM provider has no API key)'
        : 'GLM Coding Plan pack: off (the active provider is not GLM Coding Plan)',
    ];
  }
  const lines = [
    `GLM Coding Plan pack: on (${PLATFORM_ORIGIN[merge.status.platform]}, key from model credentials: [REDACTED])`,
  ];
  for (const name of merge.added) lines.push(`  ${name}: added`);
  for (const name of merge.overridden) lines.push(`  ${name}: replaced by your mcp.json entry`);
  return lines;
}
