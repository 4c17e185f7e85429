import { PullwrightError } from '@pullwright/core';
import type { Identity } from './identity-directory.ts';
import type { ServicePolicyFile } from './policy-schema.ts';

/** One operation's limits as a request may set them (the operation's `budget`). */
export interface BudgetFields {
  turns?: number | undefined;
  tokens?: number | undefined;
  wallMs?: number | undefined;
  costUsd?: number | undefined;
}

export type BudgetCaps = Required<{ [K in keyof BudgetFields]: number }>;

const POLICY_KEYS = { turns: 'turns', tokens: 'tokens', wallMs: 'wall_ms', costUsd: 'cost_usd' } as const;

/**
 * The most a request may set each limit to: the service policy's `budgets` where it sets
 * one, else the configured default (MAX_TURNS, MAX_TOKENS, MAX_WALL_MS, MAX_COST_USD).
 * Asking for less is always fine; asking for more needs an admin.
 */
export function budgetCaps(defaults: BudgetCaps, service: ServicePolicyFile['budgets']): BudgetCaps {
  const caps = { ...defaults };
  for (const [field, key] of Object.entries(POLICY_KEYS) as Array<[keyof BudgetCaps, string]>) {
    const fromPolicy = (service as Record<string, number | undefined> | undefined)?.[key];
    if (fromPolicy !== undefined) caps[field] = fromPolicy;
  }
  return caps;
}

class BudgetCapError extends PullwrightError<{ field: string; requested: number; cap: number }> {}

/**
 * Refuses (403) a budget above a cap unless the caller is an admin named in a configured
 * identity directory. Without IDENTITIES every caller counts as admin for everything else,
 * but not here: holding the API token must not buy an operation 200× the spending limit.
 */
export function assertBudgetWithinCaps(
  identity: Identity,
  requested: BudgetFields,
  caps: BudgetCaps,
  directoryConfigured: boolean,
): void {
  const isAdmin = directoryConfigured && identity.role === 'admin';
  for (const field of Object.keys(POLICY_KEYS) as Array<keyof BudgetCaps>) {
    const value = requested[field];
    if (value === undefined || value <= caps[field] || isAdmin) continue;
    const who = directoryConfigured
      ? `${identity.id} has ${identity.role ? `the ${identity.role} role` : 'no role'}`
      : 'no IDENTITIES are configured';
    throw new BudgetCapError(
      'forbidden',
      `budget.${field} ${value} is above the policy's cap of ${caps[field]}: only an admin may raise it (${who})`,
      { field: `budget.${field}`, requested: value, cap: caps[field] },
    );
  }
}
