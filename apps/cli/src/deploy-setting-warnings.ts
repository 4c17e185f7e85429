import type { Config, EnvIssue } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';

type ServiceDeploy = Runtime['approvalPolicy']['service']['deploy'];

/**
 * Where the service policy (POLICY_FILE) configures deploys, what a process that runs them
 * lacks: the signing key of a webhook deploy and the `DEPLOY_*` variables its hooks name.
 * Without them every deploy would fail when it runs; at start it is one warning.
 */
export function deploySettingWarnings(
  deploy: ServiceDeploy,
  config: Pick<Config, 'deployWebhookSecret'>,
  env: NodeJS.ProcessEnv,
): EnvIssue[] {
  if (!deploy) return [];
  const issues: EnvIssue[] = [];
  const { target, rollback } = deploy;
  if (target.kind === 'webhook' && !config.deployWebhookSecret) {
    issues.push({
      variable: 'DEPLOY_WEBHOOK_SECRET',
      reason:
        'unset, and POLICY_FILE deploys through a webhook: deploys run on workers and are signed with it. Fix: set the same value the deploy endpoint checks',
    });
  }
  const hooks = [
    ['deploy target', target.kind === 'github_deployment' ? undefined : target.url_env],
    ['rollback', rollback?.url_env],
  ] as const;
  for (const [label, name] of hooks) {
    if (name && !env[name]?.trim()) {
      issues.push({
        variable: name,
        reason: `unset, and POLICY_FILE's ${label} reads its URL from it: the deploy would fail when it runs. Fix: set it on every worker`,
      });
    }
  }
  return issues;
}
