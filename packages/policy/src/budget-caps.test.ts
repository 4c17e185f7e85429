import { describe, expect, it } from 'vitest';
import { assertBudgetWithinCaps, budgetCaps } from './budget-caps.ts';
import type { Identity } from './identity-directory.ts';

const DEFAULTS = { turns: 40, tokens: 2_000_000, wallMs: 1_800_000, costUsd: 5 };
const admin: Identity = { id: 'ann', role: 'admin', groups: [] };
const committer: Identity = { id: 'cy', role: 'committer', groups: [] };
const stranger: Identity = { id: 'api:zed', role: null, groups: [] };

describe('budget caps', () => {
  it("take the service policy's budgets where set, else the configured defaults", () => {
    expect(budgetCaps(DEFAULTS, undefined)).toEqual(DEFAULTS);
    expect(budgetCaps(DEFAULTS, { cost_usd: 2, wall_ms: 60_000 })).toEqual({ ...DEFAULTS, costUsd: 2, wallMs: 60_000 });
  });

  it.each([
    ['a lower cost', committer, { costUsd: 1 }, true, undefined],
    ['exactly the cap', committer, { costUsd: 5, turns: 40 }, true, undefined],
    [
      '200× the cost cap',
      committer,
      { costUsd: 1000 },
      true,
      "budget.costUsd 1000 is above the policy's cap of 5: only an admin may raise it (cy has the committer role)",
    ],
    ['more turns', committer, { turns: 41 }, true, /budget\.turns 41 is above the policy's cap of 40/],
    ['more tokens, no role', stranger, { tokens: 3_000_000 }, true, /budget\.tokens .* \(api:zed has no role\)/],
    ['more wall time', committer, { wallMs: 1_800_001 }, true, /budget\.wallMs/],
    ['an admin named in IDENTITIES raising a cap', admin, { costUsd: 1000, turns: 500 }, true, undefined],
    [
      'the implicit admin of an unconfigured directory',
      admin,
      { costUsd: 6 },
      false,
      /\(no IDENTITIES are configured\)$/,
    ],
  ] as const)('%s', (_name, identity, requested, configured, refusal) => {
    const check = () => assertBudgetWithinCaps(identity, requested, budgetCaps(DEFAULTS, undefined), configured);
    if (refusal === undefined) expect(check).not.toThrow();
    else {
      const message = typeof refusal === 'string' ? refusal : expect.stringMatching(refusal);
      expect(check).toThrowError(expect.objectContaining({ code: 'forbidden', message }));
    }
  });
});
