import { redisTest as test } from '@pullwright/testing';
import { describe, expect } from 'vitest';
import { BranchRegistry } from './branch-registry.ts';

const REPO = 'acme/widgets';

describe('BranchRegistry', () => {
  test('registers, lists and drops open branches', async ({ redis, prefix }) => {
    const registry = new BranchRegistry(redis, { prefix });
    const entry = await registry.register(REPO, 'agent/op2-b', { opId: 'op2', files: ['z.ts', 'a.ts', 'a.ts'] });
    expect(entry).toMatchObject({ branch: 'agent/op2-b', opId: 'op2', files: ['a.ts', 'z.ts'] });
    expect(entry).not.toHaveProperty('prNumber');
    await registry.register(REPO, 'agent/op1-a', { opId: 'op1', files: ['a.ts'], prNumber: 7 });
    await registry.register('acme/other', 'agent/op3', { opId: 'op3', files: ['a.ts'] });
    const listed = await registry.list(REPO);
    expect(listed.map((b) => [b.branch, b.opId, b.files, b.prNumber])).toEqual([
      ['agent/op1-a', 'op1', ['a.ts'], 7],
      ['agent/op2-b', 'op2', ['a.ts', 'z.ts'], undefined],
    ]);
    expect(listed[0]!.registeredAt).toBeGreaterThan(Date.now() - 5000);
    expect(await registry.drop(REPO, 'agent/op1-a')).toBe(true);
    expect(await registry.drop(REPO, 'agent/op1-a')).toBe(false);
    expect((await registry.list(REPO)).map((b) => b.branch)).toEqual(['agent/op2-b']);
    expect((await registry.list('acme/other')).map((b) => b.branch)).toEqual(['agent/op3']);
  });

  test('registers idempotently: a retried publish updates the entry instead of adding one', async ({
    redis,
    prefix,
  }) => {
    const registry = new BranchRegistry(redis, { prefix });
    await registry.register(REPO, 'agent/op1', { opId: 'op1', files: ['a.ts'] });
    await registry.register(REPO, 'agent/op1', { opId: 'op1', files: ['a.ts', 'b.ts'], prNumber: 3 });
    expect(await registry.list(REPO)).toMatchObject([{ branch: 'agent/op1', files: ['a.ts', 'b.ts'], prNumber: 3 }]);
  });

  test('finds open branches touching any of the files, except the excluded one', async ({ redis, prefix }) => {
    const registry = new BranchRegistry(redis, { prefix });
    await registry.register(REPO, 'agent/op1', { opId: 'op1', files: ['src/a.ts', 'src/b.ts'], prNumber: 1 });
    await registry.register(REPO, 'agent/op2', { opId: 'op2', files: ['src/b.ts', 'src/c.ts'] });
    await registry.register(REPO, 'agent/op3', { opId: 'op3', files: ['docs/x.md'] });
    expect(await registry.overlaps(REPO, ['src/b.ts', 'src/c.ts', 'new.ts'])).toEqual([
      { branch: 'agent/op1', opId: 'op1', prNumber: 1, files: ['src/b.ts'] },
      { branch: 'agent/op2', opId: 'op2', files: ['src/b.ts', 'src/c.ts'] },
    ]);
    expect(await registry.overlaps(REPO, ['src/b.ts', 'src/c.ts'], 'agent/op2')).toEqual([
      { branch: 'agent/op1', opId: 'op1', prNumber: 1, files: ['src/b.ts'] },
    ]);
    expect(await registry.overlaps(REPO, ['nothing.ts'])).toEqual([]);
  });

  test('refuses a bad repo, branch or owner', async ({ redis, prefix }) => {
    const registry = new BranchRegistry(redis, { prefix });
    await expect(registry.register('bad', 'b', { opId: 'op1', files: [] })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(registry.register(REPO, '', { opId: 'op1', files: [] })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(registry.register(REPO, 'b', { opId: '', files: [] })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(await registry.list(REPO)).toEqual([]);
  });
});
