import { type Logger, PullwrightError } from '@pullwright/core';
import { type FileLocks, type LeaseKeeper, LockWaitError } from '@pullwright/locks';

/** How long one wait lasts before the operation checks for cancellation and waits again. */
const WAIT_SLICE_MS = 5_000;

interface HeldBy {
  path: string;
  opId: string;
  since: number;
}

/**
 * The file locks of one running operation: files the plan names are locked all or nothing
 * up front (waiting, visibly, while another operation holds any of them); any other file is
 * locked at its first write. The lease is renewed while the job lives and released at its end.
 */
export class OperationFileLocks {
  /** Each file this job holds, with the fencing token of the grant that gave it. */
  readonly #held = new Map<string, number>();
  #keeper: LeaseKeeper | undefined;

  constructor(
    private readonly locks: FileLocks,
    private readonly repo: string,
    private readonly opId: string,
    private readonly logger: Logger,
    /**
     * Whether a holder's operation still runs. A worker killed mid-job leaves its locks until
     * the lease ends (30 min); if its operation has ended meanwhile (the stalled-job reaper
     * failed it, or a retry finished it), nobody will ever release them, so we do.
     */
    private readonly isRunning: (opId: string) => Promise<boolean> = async () => true,
  ) {}

  /** Frees locks whose holder is no longer running; true when any was freed. */
  async #freeAbandoned(holders: string[]): Promise<boolean> {
    let freed = false;
    for (const holder of new Set(holders)) {
      if (holder === this.opId || (await this.isRunning(holder))) continue;
      const paths = await this.locks.release(this.repo, holder);
      this.logger.warn({ holder, paths }, 'released file locks of an operation that is no longer running');
      freed ||= paths.length > 0;
    }
    return freed;
  }

  /** Starts renewing; a lease lost to expiry is logged, and the next push is refused (see `fence`). */
  keep(): void {
    this.#keeper ??= this.locks.keep(this.repo, this.opId, {
      // A lost lease stays in #held with its old token: `fence` then refuses the push.
      onLost: (lost) => this.logger.warn({ opId: this.opId, lost }, 'file lock lease lost'),
      onError: (err) => this.logger.warn({ err, opId: this.opId }, 'file lock renewal failed'),
    });
  }

  /** Locks a file before its first write; a file another operation holds is refused so the model can choose. */
  async lockForWrite(path: string): Promise<void> {
    if (this.#held.has(path)) return;
    let grant = await this.locks.acquire(this.repo, [path], { opId: this.opId });
    if (!grant.ok && (await this.#freeAbandoned(grant.heldBy.map((h) => h.opId)))) {
      grant = await this.locks.acquire(this.repo, [path], { opId: this.opId });
    }
    if (!grant.ok) {
      const holder = grant.heldBy[0]!;
      throw new PullwrightError(
        'conflict',
        `${path} is being changed by operation ${holder.opId} right now. Change other files, or finish and say what is left for ${path}.`,
        {
          path,
          holder: holder.opId,
        },
      );
    }
    this.#held.set(path, grant.token);
  }

  /**
   * Locks all `paths` at once, waiting while any is held. `onWait` reports who holds what
   * (once per change of holders); `shouldStop` is asked between waits, so cancel works.
   */
  async lockDeclared(
    paths: string[],
    hooks: {
      onWait(heldBy: HeldBy[]): Promise<void>;
      onAcquired(waited: boolean): Promise<void>;
      shouldStop(): Promise<void>;
    },
  ): Promise<void> {
    const wanted = [...new Set(paths)].filter((p) => !this.#held.has(p));
    if (wanted.length === 0) return;
    let waited = false;
    let lastHolders = '';
    for (;;) {
      await hooks.shouldStop();
      const grant = await this.locks.acquire(this.repo, wanted, { opId: this.opId });
      if (grant.ok) {
        for (const p of grant.paths) this.#held.set(p, grant.token);
        await hooks.onAcquired(waited);
        return;
      }
      if (await this.#freeAbandoned(grant.heldBy.map((h) => h.opId))) continue;
      const holders = JSON.stringify(grant.heldBy.map((h) => [h.path, h.opId]));
      if (holders !== lastHolders) await hooks.onWait(grant.heldBy);
      lastHolders = holders;
      waited = true;
      try {
        await this.locks.waitFor(
          this.repo,
          grant.heldBy.map((h) => h.path),
          { timeoutMs: WAIT_SLICE_MS },
        );
      } catch (err) {
        if (!(err instanceof LockWaitError)) throw err;
      }
    }
  }

  /**
   * Before a push: every file the change touches must be locked by this operation under the
   * token this job was granted. A file first seen here (a retried job, or a file a check
   * wrote) is locked now; a lock that expired and was granted again since — to anyone — has
   * a newer token, and the push is refused rather than racing the new holder.
   */
  async fence(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    for (const p of paths) if (!this.#held.has(p)) await this.lockForWrite(p);
    const now = await this.locks.current(this.repo, paths);
    for (const p of paths) {
      const mine = this.#held.get(p);
      const held = now.get(p);
      if (!held || held.opId !== this.opId || held.token !== mine) {
        const who = held ? `now held by operation ${held.opId} with token ${held.token}` : 'now free';
        throw new PullwrightError(
          'conflict',
          `the lock on ${p} was lost (fencing token ${mine} is stale, ${who}); not pushing a change another operation may be making`,
          { path: p },
        );
      }
    }
  }

  async release(): Promise<void> {
    this.#keeper?.stop();
    await this.locks.release(this.repo, this.opId);
    this.#held.clear();
  }
}
