/**
 * The `provider` section of `~/.clat/config.json` for OpenAI-compatible chat-completions servers,
 * validated with field-naming errors. The key is resolved here and kept out of every message.
 * @module
 */
import { formatZodIssues, lazyValue } from '@clat/kernel';
import * as z from 'zod';

/** Endpoints and key variables the common vendors publish; `baseUrl`/`apiKeyEnv` override them. */
export const VENDOR_PRESETS = {
  glm: { baseUrl: 'https://open.bigmodel.cn/api/coding/paas/v4', apiKeyEnv: 'Z_AI_API_KEY' },
  zai: { baseUrl: 'https://api.z.ai/api/coding/paas/v4', apiKeyEnv: 'Z_AI_API_KEY' },
  deepseek: { baseUrl: 'https://api.deepseek.com/v1', apiKeyEnv: 'DEEPSEEK_API_KEY' },
  openai: { baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' },
} as const satisfies Record<string, { baseUrl: string; apiKeyEnv: string }>;

export type KnownVendor = keyof typeof VENDOR_PRESETS;

/** Provider defaults; the per-attempt deadline matches the kernel's provider-call limit. */
export const PROVIDER_DEFAULTS = {
  maxRetries: 2,
  retryBaseMs: 500,
  retryMaxDelayMs: 20_000,
  maxTokens: 4096,
  errorBodyChars: 16 * 1024,
} as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True when `url` has userinfo, which every error and status line would otherwise carry. */
export function hasUserinfo(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

export const OpenAiCompatibleConfigSchema = lazyValue(() =>
  z
    .object({
      kind: z.literal('openai-compatible', {
        error: 'must be "openai-compatible" (the only provider kind this build knows)',
      }),
      /** `glm`, `zai`, `deepseek`, `openai`, or any label (e.g. `local`). */
      vendor: z.string().trim().min(1).optional(),
      baseUrl: z
        .string()
        .url('must be an absolute URL such as https://api.openai.com/v1')
        .refine((url) => /^https?:\/\//i.test(url), 'must use http or https')
        .refine(
          (url) => !hasUserinfo(url),
          'must not carry credentials (user:password@); give the key with "apiKey" or "apiKeyEnv"',
        )
        .optional(),
      model: z.string().trim().min(1, 'must name the model, e.g. "glm-4.6"'),
      apiKey: z
        .string()
        .trim()
        .min(1, 'must not be empty; omit it for servers without auth')
        .optional(),
      apiKeyEnv: z.string().regex(ENV_NAME, 'must be an environment variable name').optional(),
      headers: z.record(z.string(), z.string()).optional(),
      timeoutMs: z.number().int().positive().optional(),
      maxRetries: z.number().int().min(0).max(10).optional(),
      stream: z.boolean().optional(),
      temperature: z.number().min(0).max(2).optional(),
      maxTokens: z.number().int().positive().optional(),
      imageInput: z.boolean().optional(),
    })
    .strict()
    .refine((config) => !(config.apiKey !== undefined && config.apiKeyEnv !== undefined), {
      message: 'set either "apiKey" or "apiKeyEnv", not both',
      path: ['apiKey'],
    }),
);

export type OpenAiCompatibleConfig = z.infer<typeof OpenAiCompatibleConfigSchema>;

export interface ProviderConfigIssue {
  file: string;
  path: string;
  message: string;
}

/** A validated config with its key resolved; `apiKey` is absent for servers without auth. */
export interface ResolvedProviderConfig {
  vendor: string | undefined;
  baseUrl: string;
  model: string;
  apiKey: string | undefined;
  /** Where the key came from, safe to show (`env Z_AI_API_KEY`, `config.json`, `none`). */
  apiKeySource: string;
  headers: Record<string, string>;
  timeoutMs: number | undefined;
  maxRetries: number | undefined;
  stream: boolean;
  temperature: number | undefined;
  maxTokens: number | undefined;
  /** The model reads images: tool-result images go to it as `image_url` parts. */
  imageInput: boolean;
}

function presetOf(vendor: string | undefined) {
  if (vendor === undefined) return undefined;
  const key = vendor.toLowerCase();
  return Object.hasOwn(VENDOR_PRESETS, key) ? VENDOR_PRESETS[key as KnownVendor] : undefined;
}

/**
 * Validates a `provider` object and resolves its key from `env`. Returns issues naming the file
 * and field instead of throwing; a missing key is an issue when `requireKey` is set, when
 * `apiKeyEnv` names the variable, and for a known vendor at its own endpoint (no `baseUrl`).
 */
export function resolveProviderConfig(
  file: string,
  raw: unknown,
  env: Record<string, string | undefined>,
  options: { base?: string; requireKey?: boolean } = {},
): { config: ResolvedProviderConfig } | { issues: ProviderConfigIssue[] } {
  const base = options.base ?? 'provider';
  const parsed = OpenAiCompatibleConfigSchema.safeParse(raw);
  if (!parsed.success) return { issues: formatZodIssues(file, base, parsed.error) };
  const config = parsed.data;
  const preset = presetOf(config.vendor);
  const baseUrl = config.baseUrl ?? preset?.baseUrl;
  if (baseUrl === undefined) {
    return {
      issues: [
        {
          file,
          path: `${base}.baseUrl`,
          message: `is required for vendor ${JSON.stringify(config.vendor ?? '(none)')}; known vendors with a default are ${Object.keys(VENDOR_PRESETS).join(', ')}`,
        },
      ],
    };
  }
  let apiKey = config.apiKey;
  let apiKeySource = apiKey === undefined ? 'none' : 'config.json';
  const envName = config.apiKeyEnv ?? (apiKey === undefined ? preset?.apiKeyEnv : undefined);
  if (apiKey === undefined && envName !== undefined) {
    // Own variables only: `process.env` inherits Object's prototype (`constructor`, `toString`).
    const value = Object.hasOwn(env, envName) ? env[envName]?.trim() : undefined;
    if (value !== undefined && value !== '') {
      apiKey = value;
      apiKeySource = `env ${envName}`;
    } else if (
      options.requireKey === true ||
      config.apiKeyEnv !== undefined ||
      // A vendor's own endpoint always wants its key: sent without one, every request came
      // back 401 (or was retried offline) without saying which variable was missing.
      (preset !== undefined && config.baseUrl === undefined)
    ) {
      return {
        issues: [
          {
            file,
            path: `${base}.apiKeyEnv`,
            message: `environment variable ${envName} is not set or empty; export it or set "apiKey"`,
          },
        ],
      };
    }
  }
  return {
    config: {
      vendor: config.vendor,
      baseUrl: baseUrl.replace(/\/+$/, ''),
      model: config.model,
      apiKey,
      apiKeySource,
      headers: config.headers ?? {},
      timeoutMs: config.timeoutMs,
      maxRetries: config.maxRetries,
      stream: config.stream ?? false,
      temperature: config.temperature,
      maxTokens: config.maxTokens,
      imageInput: config.imageInput ?? false,
    },
  };
}
