import { OpenAIProvider } from '@pullwright/agent';
import { loadConfig, silentLogger } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { createModelProviderFactory, createSandbox } from './runtime.ts';

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

describe('createSandbox', () => {
  it('SANDBOX=auto without bubblewrap tries docker next (README: auto takes bubblewrap, then docker)', async () => {
    const config = loadConfig({ SANDBOX: 'auto' });
    const path = process.env.PATH;
    // No bwrap on PATH: bubblewrap cannot start. Whether this host's engine answers or not,
    // docker was tried: it is the runner, or named in the refusal.
    process.env.PATH = '/nonexistent';
    try {
      const runner = await createSandbox(config, silentLogger()).catch((err: Error) => err);
      if (runner instanceof Error) expect(runner.message).toMatch(/bubblewrap: .*; docker: the engine did not answer/);
      else expect(runner.name).toBe('docker');
    } finally {
      process.env.PATH = path;
    }
  });
});
