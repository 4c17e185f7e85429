import { expect } from 'vitest';
import { ModelProviderError } from '../model-provider-error.ts';

/** Awaits a call that must fail and returns its `ModelProviderError`. */
export async function providerFailure(call: Promise<unknown>): Promise<ModelProviderError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelProviderError);
  return err as ModelProviderError;
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies are JSON read back from the wire.
export type Wire = any;
