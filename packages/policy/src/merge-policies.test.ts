import { describe, expect, it } from 'vitest';
import { DEFAULT_PERMISSIONS, mergePolicies, servicePolicy } from './merge-policies.ts';
import { parseRepoPolicy, parseServicePolicy } from './parse-policy-file.ts';
import { PolicyFileError } from './policy-file-error.ts';

const merge = (service: string, repo: string) => mergePolicies(parseServicePolicy(service), parseRepoPolicy(repo));

describe('mergePolicies: the repository file only tightens', () => {
  it('defaults without any file are today’s flow: one approval, no rules, no auto-approval, no deploy', () => {
    const p = mergePolicies({}, {});
    expect(p).toEqual({
      permissions: DEFAULT_PERMISSIONS,
      approvals: { required: 1, high_risk: { required: 1, not_requester: false } },
      path_rules: [],
      protected_paths: [],
      auto_approve: { enabled: false, max_lines: 20, kinds: ['tests', 'docs'] },
      budgets: {},
      branches: { prefix: 'agent/' },
      triggers: {
        issues: { enabled: true, label: 'pullwright' },
        ci: { enabled: true, max_attempts: 2, settle_ms: 120_000 },
        allow_bots: [],
      },
      verification: { per_step: false },
    });
  });

  it('triggers: a repository turns them off or lowers the attempts, never the other way', () => {
    const off = merge('', 'triggers: { issues: { enabled: false }, ci: { enabled: false } }').triggers;
    expect([off.issues.enabled, off.ci.enabled]).toEqual([false, false]);
    const service = 'triggers: { issues: { enabled: false, label: fix-me }, ci: { max_attempts: 3, settle_ms: 500 } }';
    const t = merge(service, 'triggers: { issues: { enabled: true }, ci: { max_attempts: 5 } }').triggers;
    expect(t).toEqual({
      issues: { enabled: false, label: 'fix-me' },
      ci: { enabled: true, max_attempts: 3, settle_ms: 500 },
      allow_bots: [],
    });
    expect(merge(service, 'triggers: { ci: { max_attempts: 1 } }').triggers.ci.max_attempts).toBe(1);
  });

  it('triggers: the label, the settle delay and allowed bots are the service’s alone', () => {
    for (const repo of [
      'triggers: { issues: { label: x } }',
      'triggers: { ci: { settle_ms: 1 } }',
      'triggers: { allow_bots: [a] }',
    ])
      expect(() => parseRepoPolicy(repo)).toThrow(PolicyFileError);
    expect(parseServicePolicy('triggers: { allow_bots: ["renovate[bot]"] }').triggers?.allow_bots).toEqual([
      'renovate[bot]',
    ]);
  });

  it('permissions: the higher minimum role wins on each action', () => {
    const p = merge(
      'permissions: { request: committer, deploy: admin }',
      'permissions: { request: proposer, merge: deployer }',
    );
    expect(p.permissions.request).toBe('committer');
    expect(p.permissions.merge).toBe('deployer');
    expect(p.permissions.deploy).toBe('admin');
    expect(p.permissions.approve).toBe('committer');
  });

  it('approvals.required: the higher count wins', () => {
    expect(merge('approvals: { required: 2 }', 'approvals: { required: 1 }').approvals.required).toBe(2);
    expect(merge('approvals: { required: 1 }', 'approvals: { required: 3 }').approvals.required).toBe(3);
  });

  it('approvals.high_risk: higher count, and not_requester once either says so', () => {
    const a = merge(
      'approvals: { high_risk: { required: 2, not_requester: true } }',
      'approvals: { high_risk: { required: 1, not_requester: false } }',
    );
    expect(a.approvals.high_risk).toEqual({ required: 2, not_requester: true });
    const b = merge('', 'approvals: { high_risk: { required: 3, not_requester: true } }');
    expect(b.approvals.high_risk).toEqual({ required: 3, not_requester: true });
  });

  it('path_rules: the repository adds rules; it cannot drop the service’s', () => {
    const p = merge(
      "path_rules: [{ paths: ['.github/**'], required: 2 }]",
      "path_rules: [{ paths: ['migrations/**'], groups: [dba] }]",
    );
    expect(p.path_rules).toEqual([
      { name: '.github/**', paths: ['.github/**'], required: 2, roles: [], groups: [], not_requester: false },
      {
        name: 'migrations/**',
        paths: ['migrations/**'],
        required: 1,
        roles: [],
        groups: ['dba'],
        not_requester: false,
      },
    ]);
  });

  it('protected_paths: union', () => {
    expect(merge("protected_paths: ['infra/**']", "protected_paths: ['infra/**', 'k8s/**']").protected_paths).toEqual([
      'infra/**',
      'k8s/**',
    ]);
  });

  it('verification.per_step: on when either file asks for it; the repository cannot turn the service’s off', () => {
    expect(merge('', '').verification.per_step).toBe(false);
    expect(merge('', 'verification: { per_step: true }').verification.per_step).toBe(true);
    expect(merge('verification: { per_step: true }', 'verification: { per_step: false }').verification.per_step).toBe(
      true,
    );
  });

  it('auto_approve.enabled: needs both the service and the repository', () => {
    expect(merge('auto_approve: { enabled: true }', 'auto_approve: { enabled: true }').auto_approve.enabled).toBe(true);
    expect(merge('auto_approve: { enabled: true }', '').auto_approve.enabled).toBe(false);
    expect(merge('', 'auto_approve: { enabled: true }').auto_approve.enabled).toBe(false);
  });

  it('auto_approve.max_lines: the lower limit; kinds: the intersection', () => {
    const p = merge(
      'auto_approve: { enabled: true, max_lines: 20, kinds: [tests, docs] }',
      'auto_approve: { enabled: true, max_lines: 50, kinds: [docs] }',
    );
    expect(p.auto_approve).toEqual({ enabled: true, max_lines: 20, kinds: ['docs'] });
    expect(merge('auto_approve: { max_lines: 20 }', 'auto_approve: { max_lines: 5 }').auto_approve.max_lines).toBe(5);
  });

  it('budgets: the lower of each, unset means no extra limit', () => {
    const p = merge('budgets: { turns: 40, cost_usd: 5 }', 'budgets: { turns: 60, tokens: 1000, cost_usd: 1 }');
    expect(p.budgets).toEqual({ turns: 40, tokens: 1000, cost_usd: 1 });
  });

  it('budget contracts: the earlier pause, the shorter wait, the lower caps; the repository’s estimate', () => {
    const p = merge(
      'budgets: { pause_at_percent: 90, decision_timeout_ms: 600000, estimate_usd: 1, daily_usd: 100 }',
      'budgets: { pause_at_percent: 70, decision_timeout_ms: 3600000, estimate_usd: 0.2, repository_daily_usd: 10, daily_usd: 500 }',
    );
    expect(p.budgets).toEqual({
      pause_at_percent: 70,
      decision_timeout_ms: 600_000,
      estimate_usd: 0.2,
      repository_daily_usd: 10,
      daily_usd: 100,
    });
  });

  it('branches.prefix: must stay inside the service prefix', () => {
    expect(merge('', 'branches: { prefix: agent/payments/ }').branches.prefix).toBe('agent/payments/');
    expect(() => merge('', 'branches: { prefix: bot/ }')).toThrow(
      '.pullwright.yml.branches.prefix: must start with the service prefix agent/',
    );
  });

  it('deploy: a repository URL must be on the service’s host list; DEPLOY_* variables always may', () => {
    const hook = "deploy: { target: { kind: webhook, url: 'http://127.0.0.1:9/deploy' } }";
    expect(() => merge('', hook)).toThrow(
      ".pullwright.yml.deploy.target.url: host 127.0.0.1 is not in the service's allow.deploy_hosts",
    );
    expect(merge('allow: { deploy_hosts: [127.0.0.1] }', hook).deploy?.target).toEqual({
      kind: 'webhook',
      url: 'http://127.0.0.1:9/deploy',
    });
    expect(merge('', 'deploy: { target: { kind: railway, url_env: DEPLOY_RAILWAY_HOOK } }').deploy).toEqual({
      on_merge: true,
      target: { kind: 'railway', url_env: 'DEPLOY_RAILWAY_HOOK' },
      status: { poll_ms: 5000, timeout_ms: 600000 },
    });
  });

  it('deploy: refused when the service forbids repository deploys; the service’s own deploy applies otherwise', () => {
    const service = 'allow: { repo_deploy: false }\ndeploy: { target: { kind: github_deployment, environment: prod } }';
    let err: unknown;
    try {
      merge(service, 'deploy: { target: { kind: github_deployment } }');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PolicyFileError);
    expect((err as PolicyFileError).context.issues).toEqual([
      { field: '.pullwright.yml.deploy', reason: 'this service does not allow repositories to configure deploys' },
    ]);
    expect(merge(service, '').deploy?.target).toEqual({ kind: 'github_deployment', environment: 'prod' });
  });

  it('deploy.status.timeout_ms: no longer than the service’s', () => {
    const p = merge(
      'allow: { deploy_hosts: [d.test] }\ndeploy: { target: { kind: github_deployment }, status: { timeout_ms: 60000 } }',
      "deploy: { target: { kind: webhook, url: 'https://d.test/x' }, status: { timeout_ms: 900000 } }",
    );
    expect(p.deploy?.status.timeout_ms).toBe(60000);
  });

  it('the service file alone may loosen the built-in defaults (it is the ceiling)', () => {
    expect(servicePolicy(parseServicePolicy('permissions: { approve: proposer }')).permissions.approve).toBe(
      'proposer',
    );
  });
});
