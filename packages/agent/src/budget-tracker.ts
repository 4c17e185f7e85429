import type { ModelUsage } from './model-provider.ts';
import { costOf } from './providers/price-table.ts';

/** Limits of one operation. Whichever runs out first ends the loop, with that reason. */
export interface BudgetLimits {
  /** Model calls across all roles. */
  turns: number;
  /** Input + output tokens (cache reads count as input: they are billed). */
  tokens: number;
  wallMs: number;
  costUsd: number;
}

export interface BudgetSpent {
  turns: number;
  tokens: number;
  costUsd: number;
  wallMs: number;
  /** Calls whose model is not in the price table (their cost is unknown, counted as 0). */
  unpricedCalls: number;
}

export class BudgetTracker {
  #turns = 0;
  #tokens = 0;
  #cost = 0;
  #unpriced = 0;

  constructor(
    readonly limits: BudgetLimits,
    private readonly startedAt = Date.now(),
    private readonly now: () => number = Date.now,
  ) {}

  /** Records one model call; returns its cost in USD. */
  record(model: string, usage: ModelUsage): number {
    this.#turns++;
    this.#tokens += usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    const cost = costOf(model, usage);
    if (!cost.priced) this.#unpriced++;
    this.#cost += cost.usd;
    return cost.usd;
  }

  get spent(): BudgetSpent {
    return {
      turns: this.#turns,
      tokens: this.#tokens,
      costUsd: this.#cost,
      wallMs: this.now() - this.startedAt,
      unpricedCalls: this.#unpriced,
    };
  }

  /** Why no further model call may be made, or undefined while every limit holds. */
  exhausted(): string | undefined {
    const s = this.spent;
    const l = this.limits;
    if (s.turns >= l.turns) return `turn budget used (${s.turns} of ${l.turns} model calls)`;
    if (s.tokens >= l.tokens) return `token budget used (${s.tokens} of ${l.tokens} tokens)`;
    if (s.costUsd >= l.costUsd) return `cost budget used ($${s.costUsd.toFixed(4)} of $${l.costUsd.toFixed(2)})`;
    if (s.wallMs >= l.wallMs)
      return `time budget used (${Math.round(s.wallMs / 1000)} s of ${Math.round(l.wallMs / 1000)} s)`;
    return undefined;
  }
}
