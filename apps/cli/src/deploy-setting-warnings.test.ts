import { describe, expect, it } from 'vitest';
import { deploySettingWarnings } from './deploy-setting-warnings.ts';

describe('deploySettingWarnings', () => {
  const webhook = {
    target: { kind: 'webhook' as const, url_env: 'DEPLOY_HOOK' },
    rollback: { url_env: 'DEPLOY_ROLLBACK' },
  };

  it('names the signing key and each DEPLOY_* variable a configured deploy reads but this process lacks', () => {
    const warnings = deploySettingWarnings(webhook, { deployWebhookSecret: undefined }, {});
    expect(warnings.map((w) => w.variable)).toEqual(['DEPLOY_WEBHOOK_SECRET', 'DEPLOY_HOOK', 'DEPLOY_ROLLBACK']);
    expect(warnings[1]!.reason).toMatch(/deploy target reads its URL from it.*Fix: set it on every worker/);
  });

  it('says nothing when the deploy has what it needs, or when no deploy is configured', () => {
    const env = { DEPLOY_HOOK: 'https://deploy.example/hook', DEPLOY_ROLLBACK: 'https://deploy.example/back' };
    expect(deploySettingWarnings(webhook, { deployWebhookSecret: 'a-secret' }, env)).toEqual([]);
    expect(deploySettingWarnings(undefined, { deployWebhookSecret: undefined }, {})).toEqual([]);
    const github = { target: { kind: 'github_deployment' as const } };
    expect(deploySettingWarnings(github, { deployWebhookSecret: undefined }, {})).toEqual([]);
  });
});
