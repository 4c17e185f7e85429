// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { loadCard } from './load-card.ts';

type State = Record<string, unknown>;
interface Store {
  get(): State;
  set(patch: State): void;
  watch(fields: string[], render: (s: State) => void, key?: (s: State) => string): void;
}
const { operationStore, initialOperationState } = await loadCard<{
  operationStore: (initial: State) => Store;
  initialOperationState: (params: URLSearchParams) => State;
}>('operation-store.js');

describe('the operation page store', () => {
  it('runs the watchers of the fields that changed, in the order they were added', () => {
    const store = operationStore(initialOperationState(new URLSearchParams()));
    const ran: string[] = [];
    store.watch(['op'], (s) => ran.push(`op:${(s.op as { version: number }).version}`));
    store.watch(['tab'], (s) => ran.push(`tab:${s.tab}`));
    store.watch(['op', 'tab'], () => ran.push('both'));
    store.set({ op: { version: 1 } });
    store.set({ tab: 'changes' });
    store.set({ tab: 'changes', board: null });
    expect(ran).toEqual(['op:1', 'both', 'tab:changes', 'both']);
    expect(store.get()).toMatchObject({ op: { version: 1 }, tab: 'changes', board: null });
  });

  it('skips a keyed watcher while its key stays the same', () => {
    const store = operationStore(initialOperationState(new URLSearchParams()));
    const ran: unknown[] = [];
    store.watch(
      ['op'],
      (s) => ran.push((s.op as { version: number }).version),
      (s) => String((s.op as { status: string }).status),
    );
    store.set({ op: { version: 1, status: 'running' } });
    store.set({ op: { version: 2, status: 'running' } });
    store.set({ op: { version: 3, status: 'failed' } });
    expect(ran).toEqual([1, 3]);
  });

  it('opens on the Changes tab and the interdiff a link asks for; ignores a base that is not a sha', () => {
    const linked = initialOperationState(new URLSearchParams('tab=changes&from=abc1234'));
    expect(linked).toMatchObject({ tab: 'changes', since: 'abc1234', op: undefined, events: [], failedActions: 0 });
    expect(initialOperationState(new URLSearchParams('tab=nope&from=HEAD~1'))).toMatchObject({
      tab: 'overview',
      since: null,
    });
  });
});
