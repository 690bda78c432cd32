import { describe, expect, it } from 'vitest';
import { resolveProviderConfig } from './config.js';

describe('resolveProviderConfig', () => {
  it('refuses credentials in baseUrl, naming the field and never the value', () => {
    const result = resolveProviderConfig(
      'config.json',
      { kind: 'openai-compatible', model: 'm', baseUrl: 'https://me:pw-0123456789@llm.example/v1' },
      {},
    );
    expect(result).toEqual({
      issues: [
        {
          file: 'config.json',
          path: 'provider.baseUrl',
          message:
            'must not carry credentials (user:password@); give the key with "apiKey" or "apiKeyEnv"',
        },
      ],
    });
  });

  it('fills the GLM endpoint and reads the key from the preset variable', () => {
    const result = resolveProviderConfig(
      'config.json',
      { kind: 'openai-compatible', vendor: 'glm', model: 'glm-4.6' },
      { Z_AI_API_KEY: ' secret-value-123 ' },
    );
    expect(result).toEqual({
      config: expect.objectContaining({
        baseUrl: 'https://open.bigmodel.cn/api/coding/paas/v4',
        model: 'glm-4.6',
        apiKey: 'secret-value-123',
        apiKeySource: 'env Z_AI_API_KEY',
        stream: false,
      }),
    });
  });

  it('names the missing key of a vendor at its own endpoint, and needs none behind another baseUrl', () => {
    expect(
      resolveProviderConfig(
        'config.json',
        { kind: 'openai-compatible', vendor: 'glm', model: 'glm-4.6' },
        {},
      ),
    ).toEqual({
      issues: [
        {
          file: 'config.json',
          path: 'provider.apiKeyEnv',
          message:
            'environment variable Z_AI_API_KEY is not set or empty; export it or set "apiKey"',
        },
      ],
    });
    const proxied = resolveProviderConfig(
      'config.json',
      {
        kind: 'openai-compatible',
        vendor: 'glm',
        model: 'glm-4.6',
        baseUrl: 'http://127.0.0.1:9/v1',
      },
      {},
    );
    expect(proxied).toEqual({
      config: expect.objectContaining({ apiKey: undefined, apiKeySource: 'none' }),
    });
  });

  it('names the file and field of each problem', () => {
    const result = resolveProviderConfig(
      'config.json',
      { kind: 'anthropic', model: '', baseUrl: 'ftp://x', extra: 1 },
      {},
    );
    expect(result).toEqual({
      issues: expect.arrayContaining([
        {
          file: 'config.json',
          path: 'provider.kind',
          message: expect.stringContaining('openai-compatible'),
        },
        {
          file: 'config.json',
          path: 'provider.model',
          message: expect.stringContaining('must name the model'),
        },
        { file: 'config.json', path: 'provider.baseUrl', message: 'must use http or https' },
        {
          file: 'config.json',
          path: 'provider',
          message: 'unknown field(s) "extra"',
          unknownKeys: ['extra'],
        },
      ]),
    });
  });

  it('requires a base URL for vendors without a preset', () => {
    const result = resolveProviderConfig(
      'c',
      { kind: 'openai-compatible', vendor: 'local', model: 'm' },
      {},
    );
    expect(result).toMatchObject({ issues: [{ path: 'provider.baseUrl' }] });
  });

  it('reports an unset apiKeyEnv without printing any value', () => {
    const result = resolveProviderConfig(
      'c',
      {
        kind: 'openai-compatible',
        baseUrl: 'http://127.0.0.1:1/v1',
        model: 'm',
        apiKeyEnv: 'MY_KEY',
      },
      {},
    );
    expect(result).toEqual({
      issues: [
        {
          file: 'c',
          path: 'provider.apiKeyEnv',
          message: 'environment variable MY_KEY is not set or empty; export it or set "apiKey"',
        },
      ],
    });
  });

  it('takes an apiKeyEnv named like an Object member for unset, not for a function', () => {
    // `process.env` inherits Object's prototype: `env.constructor.trim` crashed every command.
    for (const name of ['constructor', 'toString']) {
      const result = resolveProviderConfig(
        'c',
        {
          kind: 'openai-compatible',
          baseUrl: 'http://127.0.0.1:1/v1',
          model: 'm',
          apiKeyEnv: name,
        },
        { HOME: '/h' },
      );
      expect(result).toEqual({
        issues: [
          {
            file: 'c',
            path: 'provider.apiKeyEnv',
            message: `environment variable ${name} is not set or empty; export it or set "apiKey"`,
          },
        ],
      });
    }
  });

  it('rejects apiKey together with apiKeyEnv', () => {
    const result = resolveProviderConfig(
      'c',
      {
        kind: 'openai-compatible',
        baseUrl: 'http://h/v1',
        model: 'm',
        apiKey: 'abc',
        apiKeyEnv: 'K',
      },
      { K: 'x' },
    );
    expect(result).toMatchObject({
      issues: [
        { path: 'provider.apiKey', message: 'set either "apiKey" or "apiKeyEnv", not both' },
      ],
    });
  });

  it('allows a keyless local server', () => {
    const result = resolveProviderConfig(
      'c',
      { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8080/v1/', model: 'qwen' },
      {},
    );
    expect(result).toMatchObject({
      config: { baseUrl: 'http://127.0.0.1:8080/v1', apiKey: undefined, apiKeySource: 'none' },
    });
  });
});
