import { describe, expect, it } from 'vitest';
import { forcePushFlag } from './force-push-flag.ts';

describe('forcePushFlag', () => {
  it.each([
    [['push', '--force', 'origin', 'HEAD:refs/heads/x'], '--force'],
    [['push', '-f', 'origin', 'x'], '-f'],
    [['push', '-uf', 'origin', 'x'], '-uf'],
    [['push', '--force-with-lease', 'origin', 'x'], '--force-with-lease'],
    [['push', '--force-with-lease=refs/heads/x:abc', 'origin', 'x'], '--force-with-lease=refs/heads/x:abc'],
    [['push', '--force-if-includes', 'origin', 'x'], '--force-if-includes'],
    [['push', 'origin', '+HEAD:refs/heads/x'], '+HEAD:refs/heads/x'],
    [['push', '--mirror', 'origin'], '--mirror'],
    [['push', '--delete', 'origin', 'x'], '--delete'],
    [['push', '-d', 'origin', 'x'], '-d'],
    [['push', 'origin', ':refs/heads/x'], ':refs/heads/x'],
    [['push', '--prune', 'origin', 'refs/heads/*:refs/heads/*'], '--prune'],
    [['-c', 'remote.origin.mirror=true', 'push', 'origin'], '-c remote.origin.mirror=true'],
    [
      ['-c', 'remote.origin.push=+refs/heads/*:refs/heads/*', 'push', 'origin'],
      '-c remote.origin.push=+refs/heads/*:refs/heads/*',
    ],
    [['-C', '/tmp/w', 'push', '-f', 'origin', 'x'], '-f'],
    [['push', '--no-verify', '--porcelain', 'origin', '--', '+x'], '+x'],
  ])('refuses %j (%s)', (args, flag) => {
    expect(forcePushFlag(args)).toBe(flag);
  });

  it.each([
    [['push', '--no-verify', '--porcelain', 'origin', 'HEAD:refs/heads/agent/x']],
    [['push', '-o', 'ci.skip', 'origin', 'x']],
    [['push', '-o', '-f', 'origin', 'x']],
    [['push', '--push-option', '+note', 'origin', 'x']],
    [['push', '-u', 'origin', 'x']],
    [['worktree', 'remove', '--force', '/tmp/w']],
    [['rm', '-q', '--force', '--', 'a']],
    [['commit', '-m', 'push -f']],
    [['-c', 'remote.origin.mirror=true', 'fetch', 'origin']],
  ])('lets %j through', (args) => {
    expect(forcePushFlag(args)).toBeUndefined();
  });
});
