import { PRICE_TABLE } from '@pullwright/agent';
import { emptyUsage, type Operation } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { operationBudget } from './operation-accounting.ts';

const limits = { turns: 10, tokens: 1000, wallMs: 60_000, costUsd: 1 };
const deps = { budget: limits, prices: PRICE_TABLE };

function op(usage: Partial<Operation['usage']>): Operation {
  return { id: 'op1', usage: { ...emptyUsage(), ...usage }, budget: undefined } as unknown as Operation;
}

describe('operationBudget: spend belongs to the operation', () => {
  it.each([
    ['turns', { modelCalls: 10 }, /^turn budget used \(10 of 10 model calls\)/],
    ['tokens', { inputTokens: 700, outputTokens: 300 }, /^token budget used \(1000 of 1000 tokens\)/],
    ['cost', { costUsd: 1.25 }, /^cost budget used \(\$1\.2500 of \$1\.00\)/],
    ['wall time', { wallTimeMs: 61_000 }, /^time budget used \(61 s of 60 s\)/],
  ])('a job resumed (or a revision) after the %s were spent starts exhausted', (_what, usage, reason) => {
    const now = 1_000_000;
    const budget = operationBudget(deps, op(usage), {}, () => now);
    expect(budget.exhausted()).toMatch(reason);
  });

  it('continues from the earlier spend instead of starting afresh', () => {
    let now = 0;
    const budget = operationBudget(
      deps,
      op({ modelCalls: 4, inputTokens: 100, outputTokens: 50, costUsd: 0.2, wallTimeMs: 5_000 }),
      {},
      () => now,
    );
    now = 2_000;
    budget.record('claude-sonnet-5-5', { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(budget.spent).toMatchObject({ turns: 5, tokens: 170, wallMs: 7_000 });
    expect(budget.spent.costUsd).toBeGreaterThan(0.2);
  });

  it("is never looser than the repository policy's limits", () => {
    const budget = operationBudget(deps, op({ modelCalls: 3 }), { turns: 3 });
    expect(budget.exhausted()).toMatch(/^turn budget used \(3 of 3 model calls\)/);
  });
});
