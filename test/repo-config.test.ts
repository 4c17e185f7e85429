import type { Operation } from '@pullwright/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

describe('.pullwright.yml in the target repository', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem();
  });
  afterAll(async () => sys?.stop());

  async function run(repo: string, files: Record<string, string>): Promise<Operation> {
    await createSampleRepo(sys.runtime.localForge!, repo, files);
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    const { id } = (await res.json()) as { id: string };
    return waitForStatus(sys, id, ['awaiting_approval', 'failed']);
  }

  it('uses the checks it names', async () => {
    const op = await run('acme/configured', {
      '.pullwright.yml': 'checks:\n  test: node --test\n  syntax: node --check src/slugify.js\n',
    });
    expect(op.status).toBe('awaiting_approval');
    expect(op.checks.map((c) => [c.name, c.command, c.passed])).toEqual([
      ['test', 'node --test', true],
      ['syntax', 'node --check src/slugify.js', true],
    ]);
  });

  it('fails the operation with the exact field and reason when the file is invalid', async () => {
    const op = await run('acme/badconfig', {
      '.pullwright.yml': 'checks:\n  Test Suite: npm test\nlint_file: eslint\n',
    });
    expect(op.status).toBe('failed');
    expect(op.error).toBe(
      '.pullwright.yml is invalid: .pullwright.yml.checks.Test Suite: Invalid key in record; .pullwright.yml.lint_file: must contain {file}',
    );
  });

  it('applies the policy part: protected paths are refused to the model, budgets only lowered', async () => {
    const protectedOp = await run('acme/protected', { '.pullwright.yml': 'protected_paths: ["src/slugify.js"]\n' });
    expect(protectedOp.status).toBe('failed');
    expect(await sys.transcript(protectedOp.id)).toContain('path refused (protected)');
    const budgeted = await run('acme/budgeted', { '.pullwright.yml': 'budgets: { turns: 2 }\n' });
    expect(budgeted.error).toBe('budget exhausted: turn budget used (2 of 2 model calls)');
  });

  it('refuses a check that is a server or watcher', async () => {
    const op = await run('acme/watcher', { '.pullwright.yml': 'checks:\n  test: node --test --watch\n' });
    expect(op.status).toBe('failed');
    expect(op.error).toMatch(/^check "test" cannot run: command refused \(long_running\)/);
  });
});
