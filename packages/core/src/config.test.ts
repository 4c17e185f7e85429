import { describe, expect, it } from 'vitest';
import { ConfigError, configSecrets, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      redisPrefix: 'pw',
      forge: 'local',
      workerConcurrency: 2,
      maxTurns: 40,
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

  it('reports every bad variable at once, with the reason', () => {
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
      expect(vars).toEqual(['API_TOKEN', 'DEFAULT_REPO', 'PORT', 'REDIS_URL']);
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

  it('treats empty strings as unset', () => {
    expect(loadConfig({ REDIS_URL: '', API_TOKEN: ' ' }).redisUrl).toBeUndefined();
  });

  it('lists the secrets the redactor must mask, including a Redis password', () => {
    const secrets = configSecrets(
      loadConfig({
        API_TOKEN: 'api-token-1234567890',
        SLACK_BOT_TOKEN: 'xoxb-123456',
        REDIS_URL: 'redis://:hunter2pass@localhost:6379',
      }),
    );
    expect(secrets).toEqual(expect.arrayContaining(['api-token-1234567890', 'xoxb-123456', 'hunter2pass']));
  });
});
