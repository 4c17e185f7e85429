import { SecretScanner } from '@pullwright/security';
import { type ScratchGitRepo, scratchGitRepo } from '@pullwright/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishCommits } from './publish-commits.ts';
import { scanPush } from './scanned-push.ts';

// Built from parts, as the rules document it: AKIA and 16 of A-Z2-7.
const KEY = `AKIA${'Q7WZ3KX5'}${'M2PLN4RT'}`;
const scanner = new SecretScanner();
let repo: ScratchGitRepo;
let dir: string;
const git = (...args: string[]) => repo.git(...args);
const commit = (files: Record<string, string>, message: string) => repo.commit(files, message);

let start: string;
beforeAll(() => {
  repo = scratchGitRepo('pw-scanned-push-');
  dir = repo.dir;
  start = commit({ 'config/settings.ini': `AWS_ACCESS_KEY_ID=${KEY}\n`, 'README.md': 'app\n' }, 'start');
});
afterAll(() => repo.remove());

describe('scanPush: the clearance every publish needs', () => {
  it('clears a clean push for exactly its branch, head and base', async () => {
    const head = commit({ 'README.md': 'app, documented\n' }, 'docs: describe the app');
    const scan = await scanPush(scanner, dir, { branch: 'pullwright/docs', headSha: head, since: [start] });
    expect(scan.findings).toEqual([]);
    expect(scan.clearance).toMatchObject({ branch: 'pullwright/docs', headSha: head, since: [start] });
  });

  it('clears an edit of a file whose key was already on the base, reporting the key as pre-existing', async () => {
    const head = commit(
      { 'config/settings.ini': `AWS_ACCESS_KEY_ID=${KEY}\nREGION=eu-west-1\n` },
      'config: add the region',
    );
    const scan = await scanPush(scanner, dir, { branch: 'pullwright/region', headSha: head, since: [start] });
    expect(scan.findings.map((f) => [f.channel, f.preExisting])).toEqual([['file', true]]);
    expect(scan.clearance?.headSha).toBe(head);
  });

  it.each([
    ['a commit message', () => commit({ 'README.md': 'app v2\n' }, `release: rotate ${KEY}`)],
    ['a new file', () => commit({ 'src/settings.ts': `export const key = "${KEY}";\n` }, 'settings')],
  ])('gives no clearance when %s adds a key', async (_what, make) => {
    const head = make();
    const scan = await scanPush(scanner, dir, { branch: 'pullwright/x', headSha: head, since: [start] });
    expect(scan.findings.filter((f) => !f.preExisting).length).toBeGreaterThan(0);
    expect(scan.clearance).toBeUndefined();
  });

  it('gives no clearance for a branch name that is a key', async () => {
    const head = git('rev-parse', 'HEAD');
    const scan = await scanPush(scanner, dir, { branch: `fix/${KEY}`, headSha: head, since: [start] });
    expect(scan.findings.map((f) => f.channel)).toContain('branch');
    expect(scan.clearance).toBeUndefined();
  });

  it('publishCommits takes only a clearance, and refuses a worktree that moved after its scan', async () => {
    const head = git('rev-parse', 'HEAD');
    const scan = await scanPush(scanner, dir, { branch: 'pullwright/docs', headSha: start, since: [start] });
    expect(scan.clearance).toBeDefined();
    const deps = {
      forge: {} as never,
      workspace: { headSha: async () => head } as never,
    };
    const publish = (scanned: Parameters<typeof publishCommits>[1]['scanned']) =>
      publishCommits(deps, { repo: 'acme/app', dir, auth: undefined, expectedRemoteSha: start, scanned });
    await expect(publish(scan.clearance!)).rejects.toThrow(/moved after its secret scan/);
    // @ts-expect-error a push the scan did not clear does not type-check
    await expect(publish({ branch: 'pullwright/docs', headSha: head, since: [start] })).rejects.toThrow();
  });
});
