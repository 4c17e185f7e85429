import { describe, expect, it } from 'vitest';
import type { ModelUsage } from '../model-provider.ts';
import { costOf, DEFAULT_MODELS, PRICE_TABLE, unpricedModelReason } from './price-table.ts';

function usage(partial: Partial<ModelUsage>): ModelUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, ...partial };
}

describe('costOf', () => {
  it.each([
    // 1M of each kind on Sonnet 5.5: 2 + 10 + 0.10 + 2.50
    {
      model: 'claude-sonnet-5-5',
      u: usage({ inputTokens: 1e6, outputTokens: 1e6, cacheReadTokens: 1e6, cacheWriteTokens: 1e6 }),
      usd: 14.6,
    },
    { model: 'claude-opus-5-5', u: usage({ inputTokens: 10_000, outputTokens: 2_000 }), usd: 0.08 },
    // Haiku 5.5 under the 100k prompt threshold…
    { model: 'claude-haiku-5-5', u: usage({ inputTokens: 50_000, outputTokens: 1_000 }), usd: 0.0055 },
    // …and over it, where every token of the request is billed at the long rates.
    {
      model: 'claude-haiku-5-5',
      u: usage({ inputTokens: 20_000, cacheReadTokens: 90_000, outputTokens: 1_000 }),
      usd: 0.017,
    },
    {
      model: 'gpt-6.1-sol',
      u: usage({ inputTokens: 100_000, cacheReadTokens: 100_000, outputTokens: 10_000 }),
      usd: 0.31,
    },
    // Dated ids and provider prefixes resolve to the base entry.
    { model: 'claude-haiku-4-5-20251001', u: usage({ inputTokens: 1e6 }), usd: 1 },
    { model: 'openai/gpt-5.4-mini', u: usage({ outputTokens: 1e6 }), usd: 4.5 },
  ])('$model', ({ model, u, usd }) => {
    const cost = costOf(model, u);
    expect(cost.priced).toBe(true);
    expect(cost.usd).toBeCloseTo(usd, 9);
  });

  it('prices an unknown model at 0 and says so', () => {
    expect(costOf('llama-3.3-70b-instruct', usage({ inputTokens: 1e6, outputTokens: 1e6 }))).toEqual({
      usd: 0,
      priced: false,
      pricedAs: undefined,
    });
  });

  it('takes a table from config', () => {
    const table = { ...PRICE_TABLE, 'qwen3-coder': { input: 0.2, output: 0.8, cacheRead: 0, cacheWrite: 0 } };
    expect(costOf('qwen3-coder', usage({ inputTokens: 1e6, outputTokens: 1e6 }), table)).toEqual({
      usd: 1,
      priced: true,
      pricedAs: 'qwen3-coder',
    });
  });

  it('has a positive price for every kind of token in every entry', () => {
    for (const [model, p] of Object.entries(PRICE_TABLE)) {
      expect([model, Math.min(p.input, p.output, p.cacheRead, p.cacheWrite) > 0]).toEqual([model, true]);
      expect([model, p.output > p.input && p.cacheRead < p.input]).toEqual([model, true]);
    }
  });
});

describe('unpricedModelReason', () => {
  const none = {};
  it('accepts a priced model, a default model, a dated id, a recording, and an explicit zero price', () => {
    expect(unpricedModelReason({ provider: 'anthropic', prices: none })).toBeUndefined();
    expect(unpricedModelReason({ provider: 'openai', prices: none })).toBeUndefined();
    expect(PRICE_TABLE[DEFAULT_MODELS.openai]).toBeDefined();
    expect(
      unpricedModelReason({ provider: 'anthropic', model: 'claude-opus-5-5-20261001', prices: none }),
    ).toBeUndefined();
    expect(unpricedModelReason({ provider: 'replay', model: 'anything', prices: none })).toBeUndefined();
    const zero = { 'qwen3-coder': { input: 0, output: 0 } };
    expect(unpricedModelReason({ provider: 'openai', model: 'qwen3-coder', prices: zero })).toBeUndefined();
  });

  it('names the model and the fix, with the zero price for a local model', () => {
    const reason = unpricedModelReason({ provider: 'openai', model: 'qwen3-coder', prices: none });
    expect(reason).toContain('model "qwen3-coder" has no known price');
    expect(reason).toContain(`LLM_PRICES='{"qwen3-coder":{"input":0,"output":0}}'`);
    expect(reason).toMatch(/Ollama, vLLM, llama\.cpp/);
  });
});
