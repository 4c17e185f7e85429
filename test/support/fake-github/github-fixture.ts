import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Operation } from '@pullwright/core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { FakeGitHub } from '../fake-github.ts';
import { SAMPLE_DIR } from '../sample-repo.ts';
import { waitForOperation } from '../wait-for-status.ts';
import { type GitHubTestSystem, startGitHubTestSystem } from './github-test-system.ts';

interface GitHubFixture {
  gh: FakeGitHub;
  sys: GitHubTestSystem;
  /** A fresh copy of the sample repository for each test. */
  repo: string;
  until(id: string, done: (op: Operation) => boolean, timeoutMs?: number): Promise<Operation>;
}

/**
 * One fake GitHub per file, a fresh repository and Pullwright (configured as a GitHub App)
 * per test; after each test, no installation token and no key material reached a log line.
 * Call inside a `describe`: it registers that block's hooks.
 */
export function useGitHubFixture(options: {
  repoPrefix: string;
  collaborators: Record<string, 'write' | 'read'>;
  /** The service policy (POLICY_FILE) as YAML; the built-in defaults without one. */
  policy?: string;
  /** More configuration of the Pullwright under test (IDENTITIES…). */
  env?: Record<string, string>;
}): GitHubFixture {
  let seq = 0;
  const fx = {
    until: (id: string, done: (op: Operation) => boolean, timeoutMs = 30_000) =>
      waitForOperation(fx.sys, id, done, timeoutMs),
  } as GitHubFixture;

  beforeAll(async () => {
    fx.gh = await new FakeGitHub().start();
  });
  afterAll(() => fx.gh.stop());
  beforeEach(async () => {
    fx.repo = `acme/${options.repoPrefix}-${++seq}`;
    await fx.gh.createRepository(fx.repo, { fromDir: SAMPLE_DIR });
    for (const [user, permission] of Object.entries(options.collaborators))
      fx.gh.addCollaborator(fx.repo, user, permission);
    const env = { ...options.env };
    if (options.policy !== undefined) {
      const file = path.join(fx.gh.root, `policy-${seq}.yml`);
      await writeFile(file, options.policy);
      env.POLICY_FILE = file;
    }
    fx.sys = await startGitHubTestSystem(fx.gh, env);
  });
  afterEach(async () => {
    await fx.gh.settled();
    await fx.sys.stop();
    const text = fx.sys.logs.join('');
    expect(text.length).toBeGreaterThan(0);
    for (const token of fx.gh.allTokens()) expect(text).not.toContain(token);
    expect(text).not.toContain('PRIVATE KEY');
  });
  return fx;
}
