import { silentLogger } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import type { GatewayMeter } from './gateway-meter.ts';
import { ModelGateway } from './model-gateway.ts';

const BUDGET = { costUsd: 1, turns: 10, tokens: 100_000, wallClockMs: 60_000 };

function gateway(subjects: { operations?: Record<string, string>; features?: Record<string, string> }) {
  const find = (table: Record<string, string> | undefined) => async (id: string) =>
    table?.[id] ? { id, status: table[id], budget: undefined } : undefined;
  return new ModelGateway({
    store: { find: find(subjects.operations) } as never,
    features: { find: find(subjects.features) } as never,
    meter: { spent: async () => ({ calls: 0, tokens: 0, costUsd: 0 }) } as unknown as GatewayMeter,
    llm: {},
    prices: { priced: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } } as never,
    budget: BUDGET as never,
    workerToken: 'w'.repeat(32),
    timeoutMs: 1000,
    logger: silentLogger(),
  });
}

describe('ModelGateway.refusal', () => {
  it.each([
    ['a running operation', { operations: { op1: 'running' } }, 'op1', undefined],
    ['an ended operation', { operations: { op1: 'merged' } }, 'op1', 403],
    ['a feature request being analysed', { features: { fr1: 'new' } }, 'fr1', undefined],
    ['an analysed feature request', { features: { fr1: 'analyzed' } }, 'fr1', 403],
    ['a failed analysis', { features: { fr1: 'analysis_failed' } }, 'fr1', 403],
    ['nothing', {}, 'nope', 403],
  ])('%s', async (_what, subjects, subject, status) => {
    const refusal = await gateway(subjects).refusal(subject, 'priced');
    expect(refusal?.status).toBe(status);
  });

  it('refuses a model without a price with 400 and the fix', async () => {
    const refusal = await gateway({ operations: { op1: 'running' } }).refusal('op1', 'unpriced-model');
    expect(refusal).toMatchObject({ status: 400, message: expect.stringContaining('Fix: its price in LLM_PRICES') });
  });
});
