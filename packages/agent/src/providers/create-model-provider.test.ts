import { ConfigError, loadConfig } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import type { ModelProvider } from '../model-provider.ts';
import { AnthropicProvider } from './anthropic-provider.ts';
import { createModelProvider } from './create-model-provider.ts';
import { OpenAIProvider } from './openai-provider.ts';
import { DEFAULT_MODELS } from './price-table.ts';

const stubReplay: ModelProvider = {
  name: 'replay',
  complete: () => Promise.reject(new Error('not used')),
};

function noReplay(): ModelProvider {
  throw new Error('replay must not be built for this config');
}

describe('createModelProvider', () => {
  it('builds Anthropic with the default model when none is configured', () => {
    const p = createModelProvider({ provider: 'anthropic', anthropicApiKey: 'sk-ant-test-000000' }, noReplay);
    expect(p).toBeInstanceOf(AnthropicProvider);
    expect((p as AnthropicProvider).model).toBe(DEFAULT_MODELS.anthropic);
  });

  it('honours LLM_MODEL and builds OpenAI for a keyless local server', () => {
    const config = loadConfig({
      LLM_PROVIDER: 'openai',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      LLM_MODEL: 'qwen3-coder',
    });
    const p = createModelProvider(config.llm, noReplay);
    expect(p).toBeInstanceOf(OpenAIProvider);
    expect((p as OpenAIProvider).model).toBe('qwen3-coder');
  });

  it('hands replay configs to the caller-supplied factory with the config', () => {
    let seen: unknown;
    const p = createModelProvider({ provider: 'replay', model: 'demo' }, (c) => {
      seen = c;
      return stubReplay;
    });
    expect(p).toBe(stubReplay);
    expect(seen).toEqual({ provider: 'replay', model: 'demo' });
  });

  it.each([
    { config: { provider: 'anthropic' as const }, variable: 'ANTHROPIC_API_KEY' },
    { config: { provider: 'openai' as const }, variable: 'OPENAI_API_KEY' },
  ])('refuses $config.provider without credentials', ({ config, variable }) => {
    expect(() => createModelProvider(config, noReplay)).toThrow(ConfigError);
    try {
      createModelProvider(config, noReplay);
    } catch (err) {
      expect((err as ConfigError).context.issues[0]?.variable).toBe(variable);
    }
  });
});
