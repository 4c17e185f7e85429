import { OpenAIProvider } from '@pullwright/agent';
import { loadConfig, silentLogger } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { createModelProviderFactory } from './runtime.ts';

describe('createModelProviderFactory', () => {
  it('answers an evaluation attempt with the model its run pinned, any other operation with LLM_MODEL', () => {
    const config = loadConfig({
      LLM_PROVIDER: 'openai',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      LLM_MODEL: 'team-model',
    });
    const providerFor = createModelProviderFactory(config, silentLogger());
    const op = { id: 'op1', repo: 'acme/kit', description: 'fix it' };
    const pinned = providerFor({
      ...op,
      eval: { run: 'r1', instance: 'acme__kit-1', attempt: 1, model: 'gpt-6-luna' },
    });
    const plain = providerFor(op);
    expect(pinned).toBeInstanceOf(OpenAIProvider);
    expect((pinned as OpenAIProvider).model).toBe('gpt-6-luna');
    expect((plain as OpenAIProvider).model).toBe('team-model');
  });
});
