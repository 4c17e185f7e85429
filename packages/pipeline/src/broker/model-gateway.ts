import {
  BUDGET_ERROR_TYPE,
  type BudgetLimits,
  costOf,
  type ForwardedCall,
  forwardAnthropicMessages,
  forwardChatCompletions,
  type GatewayProtocol,
  type GatewaySink,
  type PriceTable,
  type RequestBody,
  zeroUsage,
} from '@pullwright/agent';
import { FINAL_STATUSES, type Logger } from '@pullwright/core';
import type { FeatureRequestStore, OperationStore } from '@pullwright/queue';
import { jobCredentialSubject } from '@pullwright/security';
import { budgetLimits } from '../budget/operation-accounting.ts';
import type { GatewayMeter } from './gateway-meter.ts';

/** The upstream settings the API holds (`Config['llm']` fits as it is). */
interface UpstreamConfig {
  anthropicApiKey?: string | undefined;
  anthropicBaseUrl?: string | undefined;
  openaiApiKey?: string | undefined;
  openaiBaseUrl?: string | undefined;
}

interface ModelGatewayOptions {
  store: OperationStore;
  features: FeatureRequestStore;
  meter: GatewayMeter;
  llm: UpstreamConfig;
  prices: PriceTable;
  /** The service's budget (MAX_* settings); an operation's own request may set its limits. */
  budget: BudgetLimits;
  workerToken: string;
  /** One upstream call, stream included. */
  timeoutMs: number;
  logger: Logger;
}

/** Why the gateway will not forward a call, in the protocol's own error shape (see `gatewayErrorBody`). */
interface GatewayRefusal {
  status: 401 | 402 | 403 | 400;
  type: string;
  message: string;
}

/**
 * The model gateway: workers call the model here with a per-job credential instead of a
 * provider key. It checks the credential names a live operation (or a feature request being
 * analysed), refuses a call once the subject's metered spend has reached its budget, forwards
 * the call with the real key, and meters the answer's tokens and cost — so a budget holds even
 * against a worker that lies about its usage. Like the agent loop's own check, spend may pass
 * a limit by the one call that was admitted below it.
 */
export class ModelGateway {
  constructor(private readonly options: ModelGatewayOptions) {}

  /** The subject a credential (the SDK's API key) was issued for, or undefined. */
  subjectOf(credential: string): string | undefined {
    return jobCredentialSubject(this.options.workerToken, credential);
  }

  /** Undefined when the call may go ahead; else why not. */
  async refusal(subject: string, model: string): Promise<GatewayRefusal | undefined> {
    const limits = await this.#limits(subject);
    if (!limits) {
      return { status: 403, type: 'permission_error', message: 'the job this credential was issued for has ended' };
    }
    if (!costOf(model, zeroUsage(), this.options.prices).priced) {
      return {
        status: 400,
        type: 'invalid_request_error',
        message: `model "${model}" has no known price at the gateway, so the budget could not be kept. Fix: its price in LLM_PRICES on the API`,
      };
    }
    const spent = await this.options.meter.spent(subject);
    const over =
      spent.calls >= limits.turns
        ? `turn budget used (${spent.calls} of ${limits.turns} model calls)`
        : spent.tokens >= limits.tokens
          ? `token budget used (${spent.tokens} of ${limits.tokens} tokens)`
          : spent.costUsd >= limits.costUsd
            ? `cost budget used ($${spent.costUsd.toFixed(4)} of $${limits.costUsd.toFixed(2)})`
            : undefined;
    return over
      ? { status: 402, type: BUDGET_ERROR_TYPE, message: `the model gateway refused the call: ${over}` }
      : undefined;
  }

  /** Forwards one admitted call with the real key and meters what it cost. */
  async forward(
    protocol: GatewayProtocol,
    subject: string,
    body: RequestBody,
    sink: GatewaySink,
    signal: AbortSignal,
  ): Promise<ForwardedCall> {
    const { llm, timeoutMs } = this.options;
    const upstream =
      protocol === 'anthropic'
        ? { apiKey: llm.anthropicApiKey, baseURL: llm.anthropicBaseUrl, timeoutMs, signal }
        : { apiKey: llm.openaiApiKey, baseURL: llm.openaiBaseUrl, timeoutMs, signal };
    const call =
      protocol === 'anthropic'
        ? await forwardAnthropicMessages(body, upstream, sink)
        : await forwardChatCompletions(body, upstream, sink);
    const cost = costOf(call.model, call.usage, this.options.prices);
    await this.options.meter.record(subject, call.usage, cost.usd);
    this.options.logger.debug({ subject, model: call.model, costUsd: cost.usd }, 'model call metered');
    return call;
  }

  /** The subject's limits while it may call the model, or undefined once it has ended. */
  async #limits(subject: string): Promise<BudgetLimits | undefined> {
    const op = await this.options.store.find(subject);
    if (op) return FINAL_STATUSES.has(op.status) ? undefined : budgetLimits(this.options.budget, op.budget);
    // A feature request calls the model while it is analysed (`new`), never after.
    const feature = await this.options.features.find(subject);
    return feature?.status === 'new' ? this.options.budget : undefined;
  }
}
