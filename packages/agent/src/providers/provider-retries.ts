import { silentLogger } from '@pullwright/core';
import { Redactor } from '@pullwright/security';
import type { SdkErrorClasses } from './classify-failure.ts';
import { type RetryOptions, retryPolicyFrom } from './retry-options.ts';
import { type RetryPolicy, withRetries } from './with-retries.ts';

/**
 * A provider's retry setup, built once from its options: the policy, a Redactor that knows the
 * provider's key (failure details quote upstream text), the logger and the SDK's error classes.
 * Every provider call goes through `run`, so no provider wires `withRetries` by hand.
 */
export class ProviderRetries {
  readonly policy: RetryPolicy;
  readonly #run: Omit<Parameters<typeof withRetries>[0], 'signal'>;

  constructor(provider: string, options: RetryOptions & { apiKey?: string | undefined }, sdk: SdkErrorClasses) {
    this.policy = retryPolicyFrom(options);
    this.#run = {
      provider,
      policy: this.policy,
      sdk,
      redactor: new Redactor({ secrets: options.apiKey ? [options.apiKey] : [] }),
      logger: options.logger ?? silentLogger(),
    };
  }

  run<T>(signal: AbortSignal | undefined, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withRetries({ ...this.#run, signal }, attempt);
  }
}
