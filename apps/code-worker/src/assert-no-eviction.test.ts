import { silentLogger } from '@pullwright/core';
import { startRedisServer } from '@pullwright/queue';
import { Cluster, Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { assertNoEviction } from './assert-no-eviction.ts';

describe('assertNoEviction', () => {
  it('accepts noeviction and refuses any evicting policy, naming the setting', async () => {
    // A server of this test's own: its policy is changed, which the shared one must never see.
    const server = await startRedisServer();
    const redis = new Redis(server.url);
    try {
      await expect(assertNoEviction(redis, silentLogger())).resolves.toBe('noeviction');
      await redis.config('SET', 'maxmemory-policy', 'allkeys-lru');
      await expect(assertNoEviction(redis, silentLogger())).rejects.toMatchObject({
        code: 'config_invalid',
        message: expect.stringContaining('maxmemory-policy is "allkeys-lru"'),
      });
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });

  it('on a Cluster, checks every primary: one evicting primary refuses', async () => {
    // Three servers of this test's own stand in for the primaries a Cluster client reports.
    const servers = await Promise.all([startRedisServer(), startRedisServer(), startRedisServer()]);
    const primaries = servers.map((s) => new Redis(s.url));
    const cluster = new Cluster([], { lazyConnect: true });
    vi.spyOn(cluster, 'nodes').mockReturnValue(primaries);
    try {
      await expect(assertNoEviction(cluster, silentLogger())).resolves.toBe('noeviction');
      await primaries[2]!.config('SET', 'maxmemory-policy', 'volatile-lru');
      await expect(assertNoEviction(cluster, silentLogger())).rejects.toMatchObject({
        code: 'config_invalid',
        message: expect.stringContaining('maxmemory-policy is "volatile-lru"'),
      });
    } finally {
      for (const p of primaries) p.disconnect();
      cluster.disconnect();
      await Promise.all(servers.map((s) => s.stop()));
    }
  });

  it('warns and carries on when CONFIG is disabled', async () => {
    const logger = silentLogger();
    const warn = vi.spyOn(logger, 'warn');
    const redis = { config: async () => Promise.reject(new Error("ERR unknown command 'CONFIG'")) };
    await expect(assertNoEviction(redis as never, logger)).resolves.toBeUndefined();
    expect(JSON.stringify(warn.mock.calls)).toContain('maxmemory-policy');
  });

  it('does not mistake an unreachable Redis for a disabled CONFIG', async () => {
    const redis = { config: async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')) };
    await expect(assertNoEviction(redis as never, silentLogger())).rejects.toThrow('ECONNREFUSED');
  });
});
