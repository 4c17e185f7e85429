import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mergePolicies } from './merge-policies.ts';
import { parseRepoPolicy, parseServicePolicy } from './parse-policy-file.ts';
import { PolicyFileError } from './policy-file-error.ts';

const COMPLETE = `
checks:
  test: npm test
install: npm ci
lint_file: npx eslint {file}
permissions:
  request: proposer
  merge: merger
  deploy: deployer
approvals:
  required: 1
  high_risk: { required: 2, not_requester: true }
path_rules:
  - name: migrations
    paths: ['migrations/**', '**/*.sql']
    required: 2
    groups: [dba]
    not_requester: true
  - paths: ['.github/**']
    required: 2
    roles: [merger]
protected_paths: ['infra/**']
auto_approve: { enabled: true, max_lines: 20, kinds: [tests, docs] }
budgets: { turns: 30, tokens: 1000000, wall_ms: 600000, cost_usd: 2.5 }
branches: { prefix: agent/payments/ }
deploy:
  on_merge: true
  target: { kind: webhook, url: 'https://deploy.example.com/hooks/pullwright' }
  rollback: { url_env: DEPLOY_ROLLBACK_URL }
  status: { url: 'https://deploy.example.com/status/{id}', poll_ms: 2000, timeout_ms: 300000 }
`;

function issuesOf(text: string): string[] {
  try {
    parseRepoPolicy(text);
  } catch (err) {
    expect(err).toBeInstanceOf(PolicyFileError);
    return (err as PolicyFileError).context.issues.map((i) => `${i.field}: ${i.reason}`);
  }
  throw new Error('expected the file to be refused');
}

describe('.pullwright.yml policy schema', () => {
  it('accepts a complete file, checks/install/lint_file passing through untouched', () => {
    const p = parseRepoPolicy(COMPLETE);
    expect(p.checks).toEqual({ test: 'npm test' });
    expect(p.install).toBe('npm ci');
    expect(p.lint_file).toBe('npx eslint {file}');
    expect(p.path_rules?.[0]).toMatchObject({ name: 'migrations', required: 2, groups: ['dba'], not_requester: true });
    expect(p.deploy?.target).toEqual({ kind: 'webhook', url: 'https://deploy.example.com/hooks/pullwright' });
  });

  it('accepts an empty file and one with only the pipeline keys', () => {
    expect(parseRepoPolicy('')).toEqual({});
    expect(parseRepoPolicy('checks:\n  test: node --test\n')).toEqual({ checks: { test: 'node --test' } });
  });

  it.each([
    ['unknown top-level key', 'aprovals: {}', '.pullwright.yml.aprovals: unknown field'],
    ['role name', 'permissions: { merge: boss }', '.pullwright.yml.permissions.merge: Invalid option'],
    ['unknown action', 'permissions: { push: admin }', '.pullwright.yml.permissions.push: unknown field'],
    ['approvals.required zero', 'approvals: { required: 0 }', '.pullwright.yml.approvals.required: must be at least 1'],
    [
      'approvals.required too many',
      'approvals: { required: 11 }',
      '.pullwright.yml.approvals.required: must be at most 10',
    ],
    [
      'high_risk.not_requester type',
      'approvals: { high_risk: { not_requester: "yes" } }',
      '.pullwright.yml.approvals.high_risk.not_requester: Invalid input',
    ],
    ['path rule without paths', 'path_rules: [{ required: 2 }]', '.pullwright.yml.path_rules.0.paths: Invalid input'],
    [
      'path rule empty paths',
      'path_rules: [{ paths: [] }]',
      '.pullwright.yml.path_rules.0.paths: needs at least one pattern',
    ],
    [
      'path rule escaping the repo',
      "path_rules: [{ paths: ['../secrets/**'] }]",
      '.pullwright.yml.path_rules.0.paths.0: must be a path inside the repository',
    ],
    [
      'path rule absolute',
      "path_rules: [{ paths: ['/etc/**'] }]",
      '.pullwright.yml.path_rules.0.paths.0: must be a path inside the repository',
    ],
    [
      'path rule group name',
      "path_rules: [{ paths: ['a/**'], groups: ['DB Admins'] }]",
      '.pullwright.yml.path_rules.0.groups.0: must be a lower-case group name',
    ],
    [
      'path rule typo',
      "path_rules: [{ paths: ['a/**'], not_requestor: true }]",
      '.pullwright.yml.path_rules.0.not_requestor: unknown field',
    ],
    ['auto_approve kinds', 'auto_approve: { kinds: [source] }', '.pullwright.yml.auto_approve.kinds.0: Invalid option'],
    ['auto_approve max_lines', 'auto_approve: { max_lines: -1 }', '.pullwright.yml.auto_approve.max_lines: Too small'],
    ['budget turns', 'budgets: { turns: 0 }', '.pullwright.yml.budgets.turns: Too small'],
    ['budget cost', 'budgets: { cost_usd: 5000 }', '.pullwright.yml.budgets.cost_usd: Too big'],
    [
      'branch prefix',
      'branches: { prefix: Agent }',
      '.pullwright.yml.branches.prefix: must be lower-case path segments ending in /',
    ],
    [
      'deploy kind',
      'deploy: { target: { kind: ftp } }',
      ".pullwright.yml.deploy.target.kind: Invalid discriminator value. Expected 'webhook' | 'railway' | 'github_deployment'",
    ],
    [
      'deploy url and url_env both',
      'deploy: { target: { kind: railway, url: "https://x.test/h", url_env: DEPLOY_HOOK } }',
      '.pullwright.yml.deploy.target: needs exactly one of url or url_env',
    ],
    [
      'deploy url_env outside DEPLOY_*',
      'deploy: { target: { kind: railway, url_env: ANTHROPIC_API_KEY } }',
      '.pullwright.yml.deploy.target.url_env: must name a DEPLOY_* environment variable',
    ],
    [
      'deploy url scheme',
      'deploy: { target: { kind: webhook, url: "file:///etc/passwd" } }',
      '.pullwright.yml.deploy.target.url: must be an http(s) URL',
    ],
    [
      'rollback without url',
      'deploy: { target: { kind: github_deployment }, rollback: {} }',
      '.pullwright.yml.deploy.rollback: needs exactly one of url or url_env',
    ],
    [
      'status poll too fast',
      'deploy: { target: { kind: github_deployment }, status: { poll_ms: 10 } }',
      '.pullwright.yml.deploy.status.poll_ms: Too small',
    ],
    ['not a mapping', '- a\n- b', '.pullwright.yml: must be a mapping of keys'],
  ])('refuses %s naming the field', (_name, text, expected) => {
    const issues = issuesOf(text);
    expect(
      issues.some((i) => i.startsWith(expected)),
      issues.join('\n'),
    ).toBe(true);
  });

  it('reports YAML syntax errors with the position', () => {
    expect(issuesOf('approvals: {required: 1')[0]).toMatch(/^\.pullwright\.yml: not valid YAML: .*line 1/);
  });

  it('reports every bad field at once', () => {
    expect(issuesOf('approvals: { required: 0 }\nbudgets: { turns: 0 }\nextra: 1')).toHaveLength(3);
  });

  it('the service file takes `allow` but not the pipeline keys', () => {
    expect(parseServicePolicy('allow: { deploy_hosts: [deploy.internal] }')).toEqual({
      allow: { deploy_hosts: ['deploy.internal'] },
    });
    expect(() => parseServicePolicy('checks: { test: x }')).toThrow('POLICY_FILE.checks: unknown field');
    expect(() => parseRepoPolicy('allow: { repo_deploy: true }')).toThrow('.pullwright.yml.allow: unknown field');
  });
});

describe('the documented example (docs/policy.md)', () => {
  it('is a valid .pullwright.yml under a service policy that allows its deploy host', () => {
    const readme = readFileSync(new URL('../../../docs/policy.md', import.meta.url), 'utf8');
    const block = /```yaml\n(# \.pullwright\.yml — a complete example\n[\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const policy = mergePolicies(
      parseServicePolicy('allow: { deploy_hosts: [deploy.internal] }\nauto_approve: { enabled: true }'),
      parseRepoPolicy(block!),
    );
    expect(policy.path_rules.map((r) => r.name)).toEqual(['migrations', 'workflows', 'auth']);
    expect(policy.auto_approve.enabled).toBe(true);
    expect(policy.deploy?.rollback).toEqual({ url_env: 'DEPLOY_ROLLBACK_URL' });
  });
});
