import type { ModelUsage } from './model-provider.ts';
import { costOf, PRICE_TABLE, type PriceTable } from './providers/price-table.ts';

/** Limits of one operation. Whichever runs out first ends the loop, with that reason. */
export interface BudgetLimits {
  /** Model calls across all roles. */
  turns: number;
  /** Input + output tokens (cache reads count as input: they are billed). */
  tokens: number;
  wallMs: number;
  costUsd: number;
}

interface BudgetSpent {
  turns: number;
  tokens: number;
  costUsd: number;
  wallMs: number;
  /** Calls whose model is not in the price table (their cost is unknown). */
  unpricedCalls: number;
}

interface BudgetTrackerOptions {
  /** What the operation spent before this job (earlier attempts, the first run of a revision). */
  spent?: Omit<BudgetSpent, 'unpricedCalls'>;
  /** When this job's own time started counting. */
  startedAt?: number;
  /** Now, minus time the operation was not working (waiting for a person to confirm its plan). */
  now?: () => number;
  prices?: PriceTable;
}

/**
 * The operation's spend against its limits. Spend belongs to the operation, not the job: a
 * tracker starts from what earlier jobs spent, so a crash-resume or a revision cannot buy a
 * fresh budget.
 */
export class BudgetTracker {
  readonly #earlier: Omit<BudgetSpent, 'unpricedCalls'>;
  readonly #startedAt: number;
  readonly #now: () => number;
  readonly #prices: PriceTable;
  #turns = 0;
  #tokens = 0;
  #cost = 0;
  #unpriced: string | undefined;
  #unpricedCalls = 0;

  #limits: BudgetLimits;

  constructor(limits: BudgetLimits, options: BudgetTrackerOptions = {}) {
    this.#limits = { ...limits };
    this.#earlier = options.spent ?? { turns: 0, tokens: 0, costUsd: 0, wallMs: 0 };
    this.#now = options.now ?? Date.now;
    this.#startedAt = options.startedAt ?? this.#now();
    this.#prices = options.prices ?? PRICE_TABLE;
  }

  get limits(): BudgetLimits {
    return this.#limits;
  }

  /** A person extended the cost budget at its threshold (issue 32): the loop goes on with more. */
  extendCost(usd: number): void {
    this.#limits = { ...this.#limits, costUsd: this.#limits.costUsd + usd };
  }

  /** Records one model call; returns its cost in USD. */
  record(model: string, usage: ModelUsage): number {
    this.#turns++;
    this.#tokens += usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    const cost = costOf(model, usage, this.#prices);
    if (!cost.priced) {
      this.#unpricedCalls++;
      this.#unpriced = model;
    }
    this.#cost += cost.usd;
    return cost.usd;
  }

  /** The operation's whole spend: earlier jobs plus this one. */
  get spent(): BudgetSpent {
    const e = this.#earlier;
    return {
      turns: e.turns + this.#turns,
      tokens: e.tokens + this.#tokens,
      costUsd: e.costUsd + this.#cost,
      wallMs: e.wallMs + Math.max(0, this.#now() - this.#startedAt),
      unpricedCalls: this.#unpricedCalls,
    };
  }

  /** Why no further model call may be made, or undefined while every limit holds. */
  exhausted(): string | undefined {
    const s = this.spent;
    const l = this.limits;
    // An unknown price would count as $0 and the cost cap would never bite: refuse instead.
    if (this.#unpriced)
      return `cost budget cannot be kept: model "${this.#unpriced}" has no known price; set its price in LLM_PRICES (USD per million tokens, e.g. {"${this.#unpriced}":{"input":3,"output":15}})`;
    if (s.turns >= l.turns) return `turn budget used (${s.turns} of ${l.turns} model calls)`;
    if (s.tokens >= l.tokens) return `token budget used (${s.tokens} of ${l.tokens} tokens)`;
    if (s.costUsd >= l.costUsd) return `cost budget used ($${s.costUsd.toFixed(4)} of $${l.costUsd.toFixed(2)})`;
    if (s.wallMs >= l.wallMs)
      return `time budget used (${Math.round(s.wallMs / 1000)} s of ${Math.round(l.wallMs / 1000)} s)`;
    return undefined;
  }

  /**
   * Why a finished change may not be published: an unknown price, or more model calls than
   * the turn limit. Every loop asks `exhausted()` before each call, so spend passes a limit
   * by at most that last call (its tokens and cost are legitimately over); a turn count past
   * the limit can only come from calls no loop checked. Wall time bounds the model's time
   * and is not judged here: checks run after it.
   */
  overspent(): string | undefined {
    if (this.#unpriced) return this.exhausted();
    const { turns } = this.spent;
    if (turns > this.limits.turns) return `turn budget exceeded (${turns} of ${this.limits.turns} model calls)`;
    return undefined;
  }
}
