import type { Runtime } from '@pullwright/pipeline';
import { scanOperations } from './metrics-operation-scan.ts';

export type BoardDeps = Pick<Runtime, 'redis' | 'keys' | 'store' | 'locks'>;

interface BoardLock {
  path: string;
  opId: string;
  token: number;
  since: string;
  expiresInMs: number;
}

interface BoardRepo {
  repo: string;
  fileLocks: BoardLock[];
  mergeLock: Omit<BoardLock, 'path'> | null;
  /** Operations waiting for files another operation holds. */
  waiting: Array<{ opId: string; status: string; files: string[]; holder: string; since: string }>;
  branches: Array<{ branch: string; opId: string; files: string[]; prNumber?: number; registeredAt: string }>;
  /** Pairs of open branches that change the same files (future merge conflicts). */
  overlaps: Array<{ files: string[]; branches: Array<{ branch: string; opId: string; prNumber?: number }> }>;
}

interface Board {
  generatedAt: string;
  /** How many of the newest operations were looked at to find the repositories. */
  scannedOperations: number;
  repos: BoardRepo[];
}

/**
 * Who holds what, who waits on whom, which open branches overlap: one read of the lock
 * keys, the branch registry and the newest operations. Repositories are those of the
 * scanned operations (or just `repo`), so the board never SCANs the keyspace.
 */
export async function boardSnapshot(deps: BoardDeps, filter: { repo?: string } = {}): Promise<Board> {
  const ops = await scanOperations(deps);
  const repos = filter.repo ? [filter.repo] : [...new Set(ops.map((op) => op.repo))].sort();
  const out = await Promise.all(
    repos.map(async (repo): Promise<BoardRepo> => {
      const [files, merge, branches] = await Promise.all([
        deps.locks.files.holders(repo),
        deps.locks.merge.holder(repo),
        deps.locks.branches.list(repo),
      ]);
      const overlaps: BoardRepo['overlaps'] = [];
      for (let i = 0; i < branches.length; i++) {
        for (let j = i + 1; j < branches.length; j++) {
          const a = branches[i]!;
          const b = branches[j]!;
          const shared = a.files.filter((f) => b.files.includes(f));
          if (shared.length === 0) continue;
          const ref = (e: typeof a) => ({
            branch: e.branch,
            opId: e.opId,
            ...(e.prNumber === undefined ? {} : { prNumber: e.prNumber }),
          });
          overlaps.push({ files: shared, branches: [ref(a), ref(b)] });
        }
      }
      return {
        repo,
        fileLocks: files.map((h) => ({
          path: h.path,
          opId: h.opId,
          token: h.token,
          since: new Date(h.since).toISOString(),
          expiresInMs: h.expiresInMs,
        })),
        mergeLock: merge
          ? {
              opId: merge.opId,
              token: merge.token,
              since: new Date(merge.since).toISOString(),
              expiresInMs: merge.expiresInMs,
            }
          : null,
        waiting: ops
          .filter((op) => op.repo === repo && op.waiting)
          .map((op) => ({
            opId: op.id,
            status: op.status,
            files: op.waiting!.files,
            holder: op.waiting!.holder,
            since: op.waiting!.since,
          })),
        branches: branches.map((b) => ({
          branch: b.branch,
          opId: b.opId,
          files: b.files,
          ...(b.prNumber === undefined ? {} : { prNumber: b.prNumber }),
          registeredAt: new Date(b.registeredAt).toISOString(),
        })),
        overlaps,
      };
    }),
  );
  return { generatedAt: new Date().toISOString(), scannedOperations: ops.length, repos: out };
}
