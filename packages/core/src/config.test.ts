import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, readConfig } from './config.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      redisPrefix: 'pw',
      forge: 'local',
      workerConcurrency: 2,
      budget: { turns: 40, tokens: 2_000_000, wallMs: 1_800_000, costUsd: 5 },
    });
    expect(c.llm.provider).toBe('replay');
    expect(c.dataDir).toMatch(/\.pullwright$/);
    expect(c.workspaceDir).toBe(`${c.dataDir}/workspace`);
    expect(c.github.url).toBe('https://github.com');
  });

  it('picks the provider from the key that is set', () => {
    expect(loadConfig({ ANTHROPIC_API_KEY: 'sk-ant-x' }).llm.provider).toBe('anthropic');
    expect(loadConfig({ OPENAI_API_KEY: 'sk-x' }).llm.provider).toBe('openai');
    expect(loadConfig({ GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY: 'pem' }).forge).toBe('github');
  });

  it('GitHub sign-in needs both OAuth values and IDENTITIES (else every GitHub account would be an admin)', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (err) {
        return (err as ConfigError).context.issues.map((i) => `${i.variable}: ${i.reason}`);
      }
    };
    expect(problems({ GITHUB_CLIENT_ID: 'Iv1.x', GITHUB_CLIENT_SECRET: 'secret' })).toEqual([
      'IDENTITIES: required with GITHUB_CLIENT_ID: it gives GitHub logins their roles',
    ]);
    expect(problems({ GITHUB_CLIENT_ID: 'Iv1.x', IDENTITIES: '[]' })).toEqual([
      'GITHUB_CLIENT_SECRET: GitHub sign-in needs both the client id and secret',
    ]);
    expect(problems({ SLACK_APP_TOKEN: 'xoxb-1' })).toEqual(['SLACK_APP_TOKEN: must be an app-level token (xapp-…)']);
    // Joined at run time: a literal of this shape is what `pullwright scan .` reports.
    const appToken = ['xapp', '1', 'A1', '123', 'abcdef'].join('-');
    const ok = loadConfig({
      GITHUB_CLIENT_ID: 'Iv1.x',
      GITHUB_CLIENT_SECRET: 'oauth-secret-value',
      IDENTITIES: '[]',
      SLACK_APP_TOKEN: appToken,
    });
    expect(ok.secrets).toEqual(expect.arrayContaining(['oauth-secret-value', appToken]));
  });

  it('reports every bad variable at once, with the reason, cross-variable rules included', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        REDIS_URL: 'not a url',
        LLM_PROVIDER: 'anthropic',
        FORGE: 'github',
        API_TOKEN: 'short',
        DEFAULT_REPO: 'nope',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const vars = (err as ConfigError).context.issues.map((i) => i.variable).sort();
      expect(vars).toEqual([
        'ANTHROPIC_API_KEY',
        'API_TOKEN',
        'DEFAULT_REPO',
        'GITHUB_APP_ID',
        'GITHUB_APP_PRIVATE_KEY',
        'PORT',
        'REDIS_URL',
      ]);
      expect((err as ConfigError).message).toContain('API_TOKEN: must be at least 16 characters');
    }
  });

  it('checks cross-variable requirements', () => {
    try {
      loadConfig({ LLM_PROVIDER: 'anthropic', FORGE: 'github' });
      expect.unreachable();
    } catch (err) {
      const vars = (err as ConfigError).context.issues.map((i) => i.variable).sort();
      expect(vars).toEqual(['ANTHROPIC_API_KEY', 'GITHUB_APP_ID', 'GITHUB_APP_PRIVATE_KEY']);
    }
  });

  it('lets a worker with WORKER_TOKEN go without keys, and refuses keys on it in production mode', () => {
    const worker = { REDIS_URL: 'redis://r:6379', VERIFICATION_KEY: 'k'.repeat(16), WORKER_TOKEN: 'w'.repeat(16) };
    const brokered = { ...worker, LLM_PROVIDER: 'anthropic', FORGE: 'github' };
    expect(loadConfig(brokered, 'worker').internalApi.workerToken).toBe('w'.repeat(16));
    // The API brokering for it still needs the keys.
    expect(() => loadConfig(brokered, 'api')).toThrow(/ANTHROPIC_API_KEY: required when LLM_PROVIDER=anthropic/);
    const held = { ...worker, PRODUCTION_MODE: 'true', OPENAI_API_KEY: 'sk-x' };
    expect(() => loadConfig(held, 'worker')).toThrow(/OPENAI_API_KEY: a worker should not hold it/);
    expect(() => loadConfig({ ...worker, API_TOKEN: 'w'.repeat(16) }, 'api')).toThrow(
      /WORKER_TOKEN: must differ from API_TOKEN/,
    );
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ REDIS_URL: '', API_TOKEN: ' ' }).redisUrl).toBeUndefined();
  });

  it('lists the secrets the redactor must mask, including a Redis password', () => {
    // Joined at run time, like the app token above.
    const redisPassword = ['hunter2', 'pass'].join('');
    const { secrets } = loadConfig({
      API_TOKEN: 'api-token-1234567890',
      SLACK_BOT_TOKEN: 'xoxb-123456',
      REDIS_URL: `redis://:${redisPassword}@localhost:6379`,
    });
    expect(secrets).toEqual(expect.arrayContaining(['api-token-1234567890', 'xoxb-123456', redisPassword]));
  });

  it('treats the empty LLM_PROVIDER and FORGE compose passes as unset', () => {
    const c = loadConfig({ LLM_PROVIDER: '', FORGE: ' ', OPENAI_API_KEY: 'sk-x' });
    expect(c.llm.provider).toBe('openai');
    expect(c.forge).toBe('local');
  });

  it('parses REDIS_CLUSTER_NODES and refuses it beside REDIS_URL', () => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'redis-1:7000, 10.0.0.2:7001,[::1]:7002' }).redisClusterNodes).toEqual([
      { host: 'redis-1', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'a:1', REDIS_URL: 'redis://x:6379' })).toThrow(
      /REDIS_CLUSTER_NODES: set REDIS_URL or REDIS_CLUSTER_NODES, not both/,
    );
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'a:99999' })).toThrow(/"a:99999" must be host:port/);
  });

  it('names what each process role lacks, all at once', () => {
    try {
      loadConfig({}, 'api');
      expect.unreachable();
    } catch (err) {
      expect((err as ConfigError).context.issues.map((i) => i.variable)).toEqual([
        'REDIS_URL',
        'API_TOKEN',
        'VERIFICATION_KEY',
      ]);
    }
    expect(() => loadConfig({ REDIS_URL: 'redis://r:6379' }, 'worker')).toThrow(
      /VERIFICATION_KEY: required by the worker/,
    );
    const worker = loadConfig({ REDIS_URL: 'redis://r:6379', VERIFICATION_KEY: 'k'.repeat(32) }, 'worker');
    expect(worker.verificationKey).toBe('k'.repeat(32));
    expect(worker.apiToken).toBeUndefined();
  });

  it('reads secrets from <NAME>_FILE, keeps a set value, and names an unreadable file', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-config-'));
    const file = path.join(dir, 'token');
    writeFileSync(file, 'token-from-a-file-0123456789\n');
    const c = loadConfig({ API_TOKEN_FILE: file, REDIS_PASSWORD_FILE: file });
    expect(c.apiToken).toBe('token-from-a-file-0123456789');
    expect(c.redisPassword).toBe('token-from-a-file-0123456789');
    expect(c.secretFiles).toEqual([file, file]);
    expect(c.secrets).toContain('token-from-a-file-0123456789');
    expect(loadConfig({ API_TOKEN: 'set-directly-0123456789', API_TOKEN_FILE: file }).apiToken).toBe(
      'set-directly-0123456789',
    );
    expect(() => loadConfig({ VERIFICATION_KEY_FILE: path.join(dir, 'missing') })).toThrow(
      /VERIFICATION_KEY_FILE: cannot read .*missing \(ENOENT\)/,
    );
  });

  it('reports problems on one line', () => {
    expect(() => loadConfig({ PORT: 'abc', WORKER_PORT: '-1' })).toThrow(
      /^invalid configuration: [^\n]*PORT[^\n]*WORKER_PORT/,
    );
  });

  it('reads every secret from <NAME>_FILE, as the schema marks it, and masks the parts of a value that are secret', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-config-'));
    const users = path.join(dir, 'users');
    writeFileSync(users, 'alice:alice-token-0123456789\n');
    const c = loadConfig({ DASHBOARD_USERS_FILE: users, API_TOKEN: 'api-token-1234567890' });
    expect(c.dashboard.users).toEqual([{ user: 'alice', token: 'alice-token-0123456789' }]);
    expect(c.secretFiles).toEqual([users]);
    // The token of each user, not the `user:token` text; and the key derived from API_TOKEN.
    expect(c.secrets).toEqual(expect.arrayContaining(['alice-token-0123456789', c.verificationKey]));
  });
});

describe('readConfig warnings: a process starts, and is told what will not work and how to fix it', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const variables = (env: Record<string, string>, role: 'api' | 'worker' | 'all' = 'all') =>
    readConfig(env, role).warnings.map((w) => w.variable);
  const github = { GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY: pem, GITHUB_WEBHOOK_SECRET: 'webhook-secret' };

  it('a GitHub App whose private key is cut short, or given as a missing file', () => {
    expect(variables(github)).toEqual([]);
    const cut = { ...github, GITHUB_APP_PRIVATE_KEY: pem.slice(0, 400) };
    const warning = readConfig(cut).warnings[0];
    expect(warning?.variable).toBe('GITHUB_APP_PRIVATE_KEY');
    expect(warning?.reason).toMatch(/not a usable private key .* Fix: paste the whole \.pem/);
    expect(warning?.reason).not.toContain(pem.slice(40, 80));
    expect(variables({ ...github, GITHUB_APP_PRIVATE_KEY: '/nonexistent/app.pem' })).toEqual([
      'GITHUB_APP_PRIVATE_KEY',
    ]);
  });

  it('GitHub without a webhook secret, where webhooks are received', () => {
    const { GITHUB_WEBHOOK_SECRET: _, ...noSecret } = github;
    expect(readConfig(noSecret, 'all').warnings[0]?.reason).toMatch(/reviews, `\/pullwright` comments, merges/);
    expect(
      variables(
        { ...noSecret, REDIS_URL: 'redis://r:6379', API_TOKEN: 'a'.repeat(16), VERIFICATION_KEY: 'k'.repeat(16) },
        'api',
      ),
    ).toContain('GITHUB_WEBHOOK_SECRET');
    expect(
      variables(
        {
          ...noSecret,
          REDIS_URL: 'redis://r:6379',
          VERIFICATION_KEY: 'k'.repeat(16),
          PUBLIC_URL: 'https://pw.example',
        },
        'worker',
      ),
      // A worker does not receive webhooks; holding the App key without WORKER_TOKEN, it is told
      // the key belongs to the API.
    ).toEqual(['WORKER_TOKEN', 'GITHUB_APP_PRIVATE_KEY']);
  });

  it('Slack half set: a bot token alone, or a way in without the bot token', () => {
    expect(variables({ SLACK_BOT_TOKEN: 'xoxb-1' })).toEqual(['SLACK_SIGNING_SECRET']);
    expect(readConfig({ SLACK_BOT_TOKEN: 'xoxb-1' }).warnings[0]?.reason).toMatch(
      /Fix: set SLACK_SIGNING_SECRET .* or SLACK_APP_TOKEN/,
    );
    expect(variables({ SLACK_SIGNING_SECRET: 'signing' })).toEqual(['SLACK_BOT_TOKEN']);
    // Built from parts: a literal of the app-token shape is what the repository scan refuses.
    const appToken = ['xapp', '1', 'A', '1', 'x'].join('-');
    expect(variables({ SLACK_APP_TOKEN: appToken })).toEqual(['SLACK_BOT_TOKEN']);
    expect(variables({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: appToken })).toEqual([]);
  });

  it('a process alone without PUBLIC_URL, or holding a secret it never reads', () => {
    const worker = { REDIS_URL: 'redis://r:6379', VERIFICATION_KEY: 'k'.repeat(16) };
    expect(variables(worker, 'worker')).toEqual(['PUBLIC_URL', 'WORKER_TOKEN']);
    const complete = { ...worker, PUBLIC_URL: 'https://pw.example', WORKER_TOKEN: 'w'.repeat(16) };
    expect(variables({ ...complete, SLACK_BOT_TOKEN: 'xoxb-1' }, 'worker')).toEqual(['SLACK_BOT_TOKEN']);
    // npm start reads everything and links to itself: nothing to warn about.
    expect(variables({})).toEqual([]);
  });
});
