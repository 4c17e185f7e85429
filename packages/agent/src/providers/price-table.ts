import type { ModelUsage } from '../model-provider.ts';

/** USD per million tokens. `cacheWrite` is the 5-minute cache write rate. */
interface TokenRates {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ModelPrice extends TokenRates {
  /**
   * Some models bill a whole request at higher rates once its prompt (input + cache reads
   * + cache writes) passes a threshold.
   */
  longPrompt?: TokenRates & { aboveTokens: number };
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Models used when LLM_MODEL is unset. Sonnet 5.5 is Anthropic's current mid tier
 * ($2/$10 per MTok, 1M context), strong at agentic coding at a fifth of Opus 5.5's output
 * price per run of a long loop. GPT-6.1 Sol is OpenAI's counterpart at the same list
 * price. For a local server set LLM_MODEL to the name the server serves.
 */
export const DEFAULT_MODELS = {
  anthropic: 'claude-sonnet-5-5',
  openai: 'gpt-6.1-sol',
} as const;

/**
 * List prices as published by Anthropic and OpenAI, checked 2026-11. Standard tier, no
 * batch or priority discounts. Config may pass its own table to `costOf` when prices
 * change or a gateway bills differently.
 */
export const PRICE_TABLE: PriceTable = {
  // Anthropic
  'claude-opus-5-5': { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 },
  // Sonnet 5.5 cache reads dropped from $0.20 to $0.10 on 2026-10-07.
  'claude-sonnet-5-5': { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5 },
  'claude-haiku-5-5': {
    input: 0.1,
    output: 0.5,
    cacheRead: 0.01,
    cacheWrite: 0.125,
    longPrompt: { aboveTokens: 100_000, input: 0.5, output: 2.5, cacheRead: 0.05, cacheWrite: 0.625 },
  },
  'claude-opus-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-sonnet-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
  'claude-sonnet-4-6': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  // OpenAI: cache writes are billed separately from GPT-6 on.
  'gpt-6.1-sol': {
    input: 2,
    output: 10,
    cacheRead: 0.1,
    cacheWrite: 2.5,
    longPrompt: { aboveTokens: 272_000, input: 4, output: 15, cacheRead: 0.2, cacheWrite: 5 },
  },
  'gpt-6-sol': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
  'gpt-6-luna': { input: 0.1, output: 0.5, cacheRead: 0.01, cacheWrite: 0.125 },
  'gpt-5.4': { input: 2.5, output: 15, cacheRead: 0.25, cacheWrite: 2.5 },
  'gpt-5.4-mini': { input: 0.75, output: 4.5, cacheRead: 0.075, cacheWrite: 0.75 },
};

interface Cost {
  usd: number;
  /** False when the model is not in the table: the cost is then 0, not an estimate. */
  priced: boolean;
  /** The table entry used, after normalising the model id. */
  pricedAs: string | undefined;
}

/** `anthropic/claude-x`, `claude-x-20251001`, `gpt-x-2026-03-17` → the base id. */
function normalise(model: string): string {
  return model
    .trim()
    .toLowerCase()
    .replace(/^(anthropic|openai)\//, '')
    .replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');
}

function lookup(model: string, table: PriceTable): [string, ModelPrice] | undefined {
  const exact = table[model];
  if (exact) return [model, exact];
  const base = normalise(model);
  const found = table[base];
  return found ? [base, found] : undefined;
}

/** Cost of one call. Usage follows our convention: `inputTokens` excludes cached tokens. */
export function costOf(model: string, usage: ModelUsage, table: PriceTable = PRICE_TABLE): Cost {
  // A recorded conversation (tests, the demo) is billed by nobody.
  if (/^replay(:|$)/.test(model)) return { usd: 0, priced: true, pricedAs: 'replay' };
  const entry = lookup(model, table);
  if (!entry) return { usd: 0, priced: false, pricedAs: undefined };
  const [pricedAs, price] = entry;
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const rates: TokenRates = price.longPrompt && prompt > price.longPrompt.aboveTokens ? price.longPrompt : price;
  const micro =
    usage.inputTokens * rates.input +
    usage.outputTokens * rates.output +
    usage.cacheReadTokens * rates.cacheRead +
    usage.cacheWriteTokens * rates.cacheWrite;
  return { usd: micro / 1_000_000, priced: true, pricedAs };
}

/**
 * The built-in table with the operator's own prices (LLM_PRICES) on top. Cache rates not
 * given default to the input rate: an overestimate keeps the cost cap conservative.
 */
export function priceTableWith(extra: ConfiguredPrices): PriceTable {
  const table: Record<string, ModelPrice> = { ...PRICE_TABLE };
  for (const [model, p] of Object.entries(extra))
    table[model] = {
      input: p.input,
      output: p.output,
      cacheRead: p.cacheRead ?? p.input,
      cacheWrite: p.cacheWrite ?? p.input,
    };
  return table;
}

/** LLM_PRICES as configured: USD per million tokens. */
type ConfiguredPrices = Readonly<
  Record<string, { input: number; output: number; cacheRead?: number | undefined; cacheWrite?: number | undefined }>
>;

/**
 * Why the configured model's calls could not be held to a cost cap, with the fix, or
 * undefined when its price is known (the table, LLM_PRICES, or a recording). Checked at
 * start: a worker on an unpriced model would accept work and fail every operation after its
 * first model call.
 */
export function unpricedModelReason(llm: {
  provider: 'anthropic' | 'openai' | 'replay';
  model?: string | undefined;
  prices: ConfiguredPrices;
}): string | undefined {
  if (llm.provider === 'replay') return undefined;
  const model = llm.model ?? DEFAULT_MODELS[llm.provider];
  if (lookup(model, priceTableWith(llm.prices))) return undefined;
  const price = (input: number, output: number) => JSON.stringify({ [model]: { input, output } });
  return `model "${model}" has no known price, so MAX_COST_USD could not be kept. Fix: LLM_PRICES='${price(3, 15)}' (USD per million tokens, input and output); a local model (Ollama, vLLM, llama.cpp) is free: LLM_PRICES='${price(0, 0)}'`;
}
