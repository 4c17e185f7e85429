import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { initSecrets } from './init-secrets.ts';

describe('initSecrets', () => {
  it('keeps the API token apart from what workers mount, and keeps what exists', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'pw-secrets-'));
    const [shared, api] = [path.join(root, 'shared'), path.join(root, 'api')];
    expect(initSecrets(shared, api).sort()).toEqual([
      'api-token',
      'redis-password',
      'verification-key',
      'worker-token',
    ]);
    expect(existsSync(path.join(shared, 'api-token'))).toBe(false);
    expect(readFileSync(path.join(shared, 'redis.conf'), 'utf8')).toMatch(/^requirepass \S{43}\n$/);
    const token = readFileSync(path.join(api, 'api-token'), 'utf8');
    expect(initSecrets(shared, api)).toEqual([]);
    expect(readFileSync(path.join(api, 'api-token'), 'utf8')).toBe(token);
  });

  it('moves a token an older layout kept beside the shared secrets, so it keeps working out of the workers’ reach', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'pw-secrets-'));
    const [shared, api] = [path.join(root, 'shared'), path.join(root, 'api')];
    initSecrets(shared);
    const token = readFileSync(path.join(shared, 'api-token'), 'utf8');
    writeFileSync(path.join(shared, 'unrelated'), 'x');
    expect(initSecrets(shared, api)).toEqual([]);
    expect(readFileSync(path.join(api, 'api-token'), 'utf8')).toBe(token);
    expect(existsSync(path.join(shared, 'api-token'))).toBe(false);
  });
});
