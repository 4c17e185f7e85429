import { z } from 'zod';
import { envSection } from './env-section.ts';
import { jsonText, text, url } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

const price = z.number().nonnegative();
const modelPrices = jsonText(
  z.record(
    z.string().min(1),
    z.object({ input: price, output: price, cacheRead: price.optional(), cacheWrite: price.optional() }),
  ),
);

export const modelSettings = envSection(
  'Model',
  {
    LLM_PROVIDER: envVariable(z.enum(['anthropic', 'openai', 'replay']), {
      doc: '`anthropic`, `openai` (any OpenAI-compatible server) or `replay` (a recorded transcript). A worker with WORKER_TOKEN holds no key to infer it from: set it, and the worker speaks that protocol to the API’s model gateway.',
      defaultDoc: '`anthropic` with ANTHROPIC_API_KEY, `openai` with OPENAI_API_KEY, else `replay`',
      readBy: READ_BY.worker,
    }),
    LLM_MODEL: envVariable(text, {
      doc: 'The model name the provider serves; a model the built-in price table lacks needs its price in LLM_PRICES.',
      defaultDoc: "the provider's default (`claude-sonnet-5-5`, `gpt-6.1-sol`)",
      readBy: READ_BY.worker,
    }),
    LLM_PRICES: envVariable(modelPrices, {
      doc: 'Prices of models the built-in table lacks, USD per million tokens: `{"qwen3-coder":{"input":0,"output":0}}`. A local model (Ollama, vLLM, llama.cpp) costs nothing per token: give it an explicit zero price. A worker whose model has no price does not start: its cost could not be held to MAX_COST_USD.',
      readBy: READ_BY.every,
    }),
    LLM_EDIT_MODE: envVariable(z.enum(['tools', 'text']), {
      doc: '`tools`: the model edits through tool calls; `text`: whole-file blocks (`^^^path … ^^^end`) for models without tool calling.',
      default: 'tools',
      readBy: READ_BY.worker,
    }),
    ANTHROPIC_API_KEY: envVariable(text, {
      doc: 'Anthropic Messages API key: the API holds it and calls the model for the workers (its gateway); a worker holds it only without WORKER_TOKEN.',
      readBy: READ_BY.api,
      secret: true,
    }),
    ANTHROPIC_BASE_URL: envVariable(url, {
      doc: 'Another address for the Anthropic Messages API (a gateway).',
      readBy: READ_BY.every,
    }),
    OPENAI_API_KEY: envVariable(text, {
      doc: 'Key of an OpenAI-compatible API; a local server given by OPENAI_BASE_URL needs none. The API holds it (its gateway); a worker only without WORKER_TOKEN.',
      readBy: READ_BY.api,
      secret: true,
    }),
    OPENAI_BASE_URL: envVariable(url, {
      doc: 'An OpenAI-compatible server: vLLM, llama.cpp, Ollama (`http://localhost:11434/v1`).',
      readBy: READ_BY.every,
    }),
    REPLAY_FILE: envVariable(text, {
      doc: 'The recording the `replay` provider plays: a replay file (JSON) or an operation transcript (`transcript.jsonl`); see docs/replay.md.',
      defaultDoc: 'the bundled demo transcript',
      readBy: READ_BY.worker,
    }),
  },
  (env) => ({
    llm: {
      provider:
        env.LLM_PROVIDER ?? (env.ANTHROPIC_API_KEY ? 'anthropic' : env.OPENAI_API_KEY ? 'openai' : ('replay' as const)),
      model: env.LLM_MODEL,
      editMode: env.LLM_EDIT_MODE,
      /** LLM_PRICES: USD per million tokens for models the built-in table lacks. */
      prices: env.LLM_PRICES ?? {},
      anthropicApiKey: env.ANTHROPIC_API_KEY,
      anthropicBaseUrl: env.ANTHROPIC_BASE_URL,
      openaiApiKey: env.OPENAI_API_KEY,
      openaiBaseUrl: env.OPENAI_BASE_URL,
      replayFile: env.REPLAY_FILE,
    },
  }),
);
