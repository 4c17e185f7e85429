import {
  ACTIONS,
  type Action,
  DEFAULT_TRIGGERS,
  type FieldIssue,
  type Policy,
  type ResolvedPathRule,
  type Role,
} from '@pullwright/core';
import { PolicyFileError } from './policy-file-error.ts';
import type { DeploySettings, PathRule, RepoPolicyFile, ServicePolicyFile } from './policy-schema.ts';
import { higherRole } from './roles.ts';

/** Without any policy file: anyone may do anything their role allows, one approval merges (today's flow). */
export const DEFAULT_PERMISSIONS: Readonly<Record<Action, Role>> = {
  request: 'proposer',
  revise: 'committer',
  approve: 'committer',
  reject: 'committer',
  cancel: 'committer',
  merge: 'merger',
  deploy: 'deployer',
};

/** Seed Phase 4's auto-approval criteria: ≤ 20 lines, tests and docs only. */
const DEFAULT_AUTO_APPROVE = { enabled: false, max_lines: 20, kinds: ['tests', 'docs'] as ('tests' | 'docs')[] };
/** A deploy that has not finished in 10 minutes is treated as failed (and rolled back). */
const DEFAULT_DEPLOY_STATUS = { poll_ms: 5000, timeout_ms: 10 * 60_000 };

function resolveRule(rule: PathRule): ResolvedPathRule {
  return {
    name: rule.name ?? rule.paths[0]!,
    paths: rule.paths,
    required: rule.required ?? 1,
    roles: rule.roles ?? [],
    groups: rule.groups ?? [],
    not_requester: rule.not_requester ?? false,
  };
}

function resolveDeploy(d: DeploySettings): NonNullable<Policy['deploy']> {
  const t = d.target;
  return {
    on_merge: d.on_merge ?? true,
    target:
      t.kind === 'github_deployment'
        ? { kind: 'github_deployment', environment: t.environment ?? 'production' }
        : { kind: t.kind, ...(t.url ? { url: t.url } : {}), ...(t.url_env ? { url_env: t.url_env } : {}) },
    ...(d.rollback ? { rollback: d.rollback } : {}),
    status: {
      ...(d.status?.url ? { url: d.status.url } : {}),
      poll_ms: d.status?.poll_ms ?? DEFAULT_DEPLOY_STATUS.poll_ms,
      timeout_ms: d.status?.timeout_ms ?? DEFAULT_DEPLOY_STATUS.timeout_ms,
    },
  };
}

const minDefined = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

/** The service file over the built-in defaults: the ceiling a repository works under. */
export function servicePolicy(service: ServicePolicyFile): Policy {
  return {
    permissions: Object.fromEntries(
      ACTIONS.map((a) => [a, service.permissions?.[a] ?? DEFAULT_PERMISSIONS[a]]),
    ) as Record<Action, Role>,
    approvals: {
      required: service.approvals?.required ?? 1,
      high_risk: {
        required: service.approvals?.high_risk?.required ?? 1,
        not_requester: service.approvals?.high_risk?.not_requester ?? false,
      },
    },
    path_rules: (service.path_rules ?? []).map(resolveRule),
    protected_paths: service.protected_paths ?? [],
    auto_approve: {
      enabled: service.auto_approve?.enabled ?? DEFAULT_AUTO_APPROVE.enabled,
      max_lines: service.auto_approve?.max_lines ?? DEFAULT_AUTO_APPROVE.max_lines,
      kinds: service.auto_approve?.kinds ?? DEFAULT_AUTO_APPROVE.kinds,
    },
    budgets: { ...service.budgets },
    branches: { prefix: service.branches?.prefix ?? 'agent/' },
    triggers: {
      issues: {
        enabled: service.triggers?.issues?.enabled ?? DEFAULT_TRIGGERS.issues.enabled,
        label: service.triggers?.issues?.label ?? DEFAULT_TRIGGERS.issues.label,
      },
      ci: {
        enabled: service.triggers?.ci?.enabled ?? DEFAULT_TRIGGERS.ci.enabled,
        max_attempts: service.triggers?.ci?.max_attempts ?? DEFAULT_TRIGGERS.ci.max_attempts,
        settle_ms: service.triggers?.ci?.settle_ms ?? DEFAULT_TRIGGERS.ci.settle_ms,
      },
      allow_bots: service.triggers?.allow_bots ?? DEFAULT_TRIGGERS.allow_bots,
    },
    verification: { per_step: service.verification?.per_step ?? false },
    ...(service.deploy ? { deploy: resolveDeploy(service.deploy) } : {}),
  };
}

/**
 * The effective policy of one repository. The repository file can only tighten: minimum roles
 * and approval counts take the higher value, limits the lower, rules and protected paths add
 * up, auto-approval needs both files to enable it. What cannot be ordered (a branch prefix
 * outside the service's, a deploy the service does not allow) is an error naming the field.
 */
export function mergePolicies(service: ServicePolicyFile, repo: RepoPolicyFile, file = '.pullwright.yml'): Policy {
  const base = servicePolicy(service);
  const issues: FieldIssue[] = [];
  const field = (...path: (string | number)[]) => [file, ...path].join('.');

  const permissions = { ...base.permissions };
  for (const a of ACTIONS) {
    const wanted = repo.permissions?.[a];
    if (wanted) permissions[a] = higherRole(base.permissions[a], wanted);
  }

  const prefix = repo.branches?.prefix;
  if (prefix !== undefined && !prefix.startsWith(base.branches.prefix))
    issues.push({
      field: field('branches', 'prefix'),
      reason: `must start with the service prefix ${base.branches.prefix}`,
    });

  let deploy = base.deploy;
  if (repo.deploy) {
    if (service.allow?.repo_deploy === false) {
      issues.push({ field: field('deploy'), reason: 'this service does not allow repositories to configure deploys' });
    } else {
      const hosts = new Set((service.allow?.deploy_hosts ?? []).map((h) => h.toLowerCase()));
      const checkHost = (url: string | undefined, ...path: string[]) => {
        if (url === undefined) return;
        let host: string;
        try {
          host = new URL(url.replaceAll('{id}', 'id')).hostname.toLowerCase();
        } catch {
          issues.push({ field: field(...path), reason: 'must be an absolute URL' });
          return;
        }
        // The worker calls these URLs from inside the network: a repository must not pick the target.
        if (!hosts.has(host))
          issues.push({ field: field(...path), reason: `host ${host} is not in the service's allow.deploy_hosts` });
      };
      const t = repo.deploy.target;
      if (t.kind !== 'github_deployment') checkHost(t.url, 'deploy', 'target', 'url');
      checkHost(repo.deploy.rollback?.url, 'deploy', 'rollback', 'url');
      checkHost(repo.deploy.status?.url, 'deploy', 'status', 'url');
      deploy = resolveDeploy(repo.deploy);
      if (base.deploy) deploy.status.timeout_ms = Math.min(deploy.status.timeout_ms, base.deploy.status.timeout_ms);
    }
  }
  if (issues.length > 0) throw new PolicyFileError(file, issues);

  const repoAuto = repo.auto_approve;
  return {
    permissions,
    approvals: {
      required: Math.max(base.approvals.required, repo.approvals?.required ?? 0),
      high_risk: {
        required: Math.max(base.approvals.high_risk.required, repo.approvals?.high_risk?.required ?? 0),
        not_requester: base.approvals.high_risk.not_requester || (repo.approvals?.high_risk?.not_requester ?? false),
      },
    },
    path_rules: [...base.path_rules, ...(repo.path_rules ?? []).map(resolveRule)],
    protected_paths: [...new Set([...base.protected_paths, ...(repo.protected_paths ?? [])])],
    auto_approve: {
      enabled: base.auto_approve.enabled && (repoAuto?.enabled ?? false),
      max_lines: Math.min(base.auto_approve.max_lines, repoAuto?.max_lines ?? base.auto_approve.max_lines),
      kinds: base.auto_approve.kinds.filter((k) => (repoAuto?.kinds ?? base.auto_approve.kinds).includes(k)),
    },
    budgets: {
      ...optionalEntry('turns', minDefined(base.budgets.turns, repo.budgets?.turns)),
      ...optionalEntry('tokens', minDefined(base.budgets.tokens, repo.budgets?.tokens)),
      ...optionalEntry('wall_ms', minDefined(base.budgets.wall_ms, repo.budgets?.wall_ms)),
      ...optionalEntry('cost_usd', minDefined(base.budgets.cost_usd, repo.budgets?.cost_usd)),
      // Stricter wins: the earlier pause, the shorter wait, the lower cap. The estimate is the repository's own.
      ...optionalEntry('pause_at_percent', minDefined(base.budgets.pause_at_percent, repo.budgets?.pause_at_percent)),
      ...optionalEntry(
        'decision_timeout_ms',
        minDefined(base.budgets.decision_timeout_ms, repo.budgets?.decision_timeout_ms),
      ),
      ...optionalEntry('estimate_usd', repo.budgets?.estimate_usd ?? base.budgets.estimate_usd),
      ...optionalEntry(
        'repository_daily_usd',
        minDefined(base.budgets.repository_daily_usd, repo.budgets?.repository_daily_usd),
      ),
      ...optionalEntry('daily_usd', minDefined(base.budgets.daily_usd, repo.budgets?.daily_usd)),
    },
    branches: { prefix: prefix ?? base.branches.prefix },
    triggers: {
      issues: {
        ...base.triggers.issues,
        enabled: base.triggers.issues.enabled && (repo.triggers?.issues?.enabled ?? true),
      },
      ci: {
        ...base.triggers.ci,
        enabled: base.triggers.ci.enabled && (repo.triggers?.ci?.enabled ?? true),
        max_attempts: Math.min(
          base.triggers.ci.max_attempts,
          repo.triggers?.ci?.max_attempts ?? Number.POSITIVE_INFINITY,
        ),
      },
      allow_bots: base.triggers.allow_bots,
    },
    // Stricter wins: either file can ask for every step to be verified on its own.
    verification: { per_step: base.verification.per_step || (repo.verification?.per_step ?? false) },
    ...(deploy ? { deploy } : {}),
  };
}

function optionalEntry<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}
