import { describe, expect, it } from 'vitest';
import { secretEnvValues } from './env-secrets.js';

describe('secretEnvValues', () => {
  it('keeps plain values of plainly named variables out of redaction, and everything else in', () => {
    const env = {
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      DEBUG: 'true',
      PORT: '3000',
      REQUEST_TIMEOUT_MS: '5000',
      MEMORY_FILE_PATH: '/home/u/.clat/plugin-data/memory/memory.json',
      CLAT_PLUGIN_ID: 'memory',
      // Secret-named, or of no plain shape: redacted whatever the value looks like.
      API_TOKEN: 'true',
      DB_PASSWORD: '3000',
      PIN: '1234',
      ADMIN: '482913',
      PASSPORT: '7788',
      SLASHED_KEY_LIKE: '/AbCdEf0123+xyz=',
      DB_PASS: 'hunter',
      DATABASE_URL: 'postgres://u:pw@db/x',
      CUSTOM: 'abc123xyz',
    };
    expect(secretEnvValues(env).sort()).toEqual(
      [
        'true',
        '3000',
        '1234',
        '482913',
        '7788',
        '/AbCdEf0123+xyz=',
        'hunter',
        'postgres://u:pw@db/x',
        'abc123xyz',
      ].sort(),
    );
  });
});
