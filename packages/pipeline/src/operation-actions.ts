import { type Operation, PullwrightError, type RequesterSource } from '@pullwright/core';
import type { CodeQueue, OperationStore } from '@pullwright/queue';
import type { z } from 'zod';

type Source = z.infer<typeof RequesterSource>;

/**
 * What a person can do to an operation, shared by every entry point (REST, dashboard,
 * Slack, GitHub) so they all follow the same rules.
 */
export class OperationActions {
  constructor(
    private readonly store: OperationStore,
    private readonly queue: CodeQueue,
  ) {}

  /** Binds the approval to the head sha the approver saw; a different sha is refused. */
  async approve(id: string, by: { user: string; source: Source }, headSha?: string): Promise<Operation> {
    const op = await this.store.get(id);
    const current = op.pullRequest?.headSha;
    if (op.status === 'awaiting_approval' && current && headSha && headSha !== current) {
      throw new PullwrightError(
        'conflict',
        `the branch moved: approval was for ${headSha.slice(0, 12)}, head is ${current.slice(0, 12)}`,
        {
          status: op.status,
        },
      );
    }
    const approved = await this.store.transition(
      id,
      'approved',
      { approval: { by: by.user, source: by.source, headSha: current ?? '', at: new Date().toISOString() } },
      { by: by.user, source: by.source, headSha: current },
    );
    await this.queue.add('merge', { opId: id, headSha: approved.approval!.headSha });
    return approved;
  }

  async reject(id: string, by: { user: string; source: Source }, reason?: string): Promise<Operation> {
    return this.store.transition(
      id,
      'rejected',
      { error: `rejected by ${by.user}${reason ? `: ${reason}` : ''}` },
      { by: by.user },
    );
  }

  /**
   * A queued operation is cancelled at once; a running one is asked to stop and the worker
   * ends it between steps (it owns the worktree and must clean up).
   */
  async cancel(id: string, by: { user: string; source: Source }): Promise<Operation> {
    const op = await this.store.get(id);
    if (op.status === 'queued') {
      await this.queue.removeWaiting(id);
      return this.store.transition(id, 'cancelled', { error: `cancelled by ${by.user}` }, { by: by.user });
    }
    if (op.status === 'running') {
      return this.store.patch(id, { cancelRequested: true }, { type: 'cancel_requested', data: { by: by.user } });
    }
    throw new PullwrightError('invalid_transition', `cannot cancel an operation that is ${op.status}`, {
      from: op.status,
      to: 'cancelled',
    });
  }
}
