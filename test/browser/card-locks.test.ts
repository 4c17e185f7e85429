// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (board: unknown, op: { id: string; repo: string }) => CardElement;
const { renderLocks } = await loadCard<{ renderLocks: Render }>('card-locks.js');

const OP = { id: 'op_1', repo: 'acme/web' };

describe('the locks card', () => {
  it("shows only this operation's locks, waits, overlaps and the merge lock", () => {
    const board = {
      repos: [
        { repo: 'acme/other', fileLocks: [{ path: 'elsewhere.ts', opId: 'op_1' }] },
        {
          repo: 'acme/web',
          fileLocks: [
            { path: 'src/a.ts', opId: 'op_1' },
            { path: 'src/b.ts', opId: 'op_2' },
          ],
          mergeLock: { opId: 'op_1' },
          waiting: [{ opId: 'op_1', files: ['src/c.ts'], holder: 'op_3' }],
          overlaps: [
            {
              files: ['src/a.ts'],
              branches: [
                { branch: 'agent/op_1-x', opId: 'op_1' },
                { branch: 'agent/op_4-y', opId: 'op_4' },
              ],
            },
            { files: ['z.ts'], branches: [{ branch: 'agent/op_5', opId: 'op_5' }] },
          ],
        },
      ],
    };
    const el = renderLocks(board, OP);
    expect(el.querySelector('p')!.textContent).toBe('Holds the merge lock of this repository.');
    expect([...el.querySelectorAll('h3')].map((x) => x.textContent)).toEqual([
      'Files locked',
      'Waiting on',
      'Overlaps',
    ]);
    expect([...el.querySelectorAll('li')].map((x) => x.textContent)).toEqual([
      'src/a.ts',
      'src/c.ts — held by op_3',
      'src/a.ts — agent/op_1-x / agent/op_4-y',
    ]);
  });

  it.each([
    ['loading', undefined, 'Loading…'],
    ['failed', null, 'The lock board could not be loaded.'],
    ['empty', { repos: [] }, 'This operation holds no locks and overlaps no open branch.'],
    [
      'about others only',
      { repos: [{ repo: 'acme/web', fileLocks: [{ path: 'a', opId: 'op_2' }], mergeLock: { opId: 'op_2' } }] },
      'This operation holds no locks and overlaps no open branch.',
    ],
  ])('says so when the board is %s', (_name, board, text) => {
    expect(renderLocks(board, OP).textContent).toBe(text);
  });
});
