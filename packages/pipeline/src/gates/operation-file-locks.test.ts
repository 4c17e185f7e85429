import { silentLogger } from '@pullwright/core';
import { FileLocks } from '@pullwright/locks';
import { redisTest } from '@pullwright/testing';
import { describe, expect } from 'vitest';
import { OperationFileLocks } from './operation-file-locks.ts';

describe('OperationFileLocks', () => {
  redisTest(
    'refuses a file a running operation holds, and frees the locks of one that no longer runs',
    async ({ redis, prefix }) => {
      const locks = new FileLocks(redis, { prefix: prefix });
      const running = new Set(['holder']);
      const isRunning = async (id: string) => running.has(id);
      try {
        expect((await locks.acquire('acme/app', ['src/a.ts'], { opId: 'holder' })).ok).toBe(true);
        const mine = new OperationFileLocks(locks, 'acme/app', 'mine', silentLogger(), isRunning);
        await expect(mine.lockForWrite('src/a.ts')).rejects.toMatchObject({
          code: 'conflict',
          context: { holder: 'holder' },
        });

        // The holder's worker died and its operation was ended elsewhere: its lease would last 30 min.
        running.delete('holder');
        await mine.lockForWrite('src/a.ts');
        expect((await locks.holders('acme/app')).map((h) => h.opId)).toEqual(['mine']);

        // Declared files: a dead holder does not make the operation wait.
        expect((await locks.acquire('acme/app', ['src/b.ts'], { opId: 'gone' })).ok).toBe(true);
        const waits: unknown[] = [];
        await mine.lockDeclared(['src/b.ts'], {
          onWait: async (h) => void waits.push(h),
          onAcquired: async () => undefined,
          shouldStop: async () => undefined,
        });
        expect(waits).toEqual([]);
        await mine.release();
        expect(await locks.holders('acme/app')).toEqual([]);
      } finally {
        await locks.close();
      }
    },
  );

  redisTest(
    'fences a push: a lock that expired and went to another operation is a stale token, and the push is refused',
    async ({ redis, prefix }) => {
      const locks = new FileLocks(redis, { prefix });
      try {
        const mine = new OperationFileLocks(locks, 'acme/app', 'mine', silentLogger());
        await mine.lockForWrite('src/a.ts');
        // Not locked before: a file a check wrote, or one a retried job finds changed, is locked now.
        await mine.fence(['src/a.ts', 'src/new.ts']);
        expect((await locks.holders('acme/app')).map((h) => [h.path, h.opId])).toEqual([
          ['src/a.ts', 'mine'],
          ['src/new.ts', 'mine'],
        ]);

        // Our lease ran out (the release stands in for the expiry) and another operation took the file.
        await locks.release('acme/app', 'mine');
        expect((await locks.acquire('acme/app', ['src/a.ts'], { opId: 'other' })).ok).toBe(true);
        await expect(mine.fence(['src/a.ts'])).rejects.toMatchObject({
          code: 'conflict',
          message: expect.stringMatching(
            /lock on src\/a\.ts was lost \(fencing token \d+ is stale, now held by operation other/,
          ),
        });

        // Free again, yet re-granted to us would carry a newer token: still refused, never silently re-taken.
        await locks.release('acme/app', 'other');
        await expect(mine.fence(['src/a.ts'])).rejects.toThrow(/fencing token \d+ is stale, now free/);
      } finally {
        await locks.close();
      }
    },
  );
});
