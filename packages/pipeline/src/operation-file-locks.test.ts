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
});
