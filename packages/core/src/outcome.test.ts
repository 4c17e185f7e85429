import { describe, expect, it } from 'vitest';
import type { ErrorCode } from './errors.ts';
import {
  describeOutcome,
  mapOutcomeText,
  OUTCOME_KINDS,
  Outcome,
  type OutcomeKinds,
  outcomeOfError,
  outcomeStatus,
} from './outcome.ts';

describe('Outcome: how an operation ended, as data', () => {
  it('has one kind (status, retryable, description) for every code of the schema', () => {
    const codes = Outcome.options.map((o) => o.shape.code.value).sort();
    expect(Object.keys(OUTCOME_KINDS).sort()).toEqual(codes);
  });

  it.each([
    [{ code: 'merged' }, 'merged', 'merged'],
    [{ code: 'rejected', by: 'alice', note: 'not now' }, 'rejected', 'rejected by alice: not now'],
    [{ code: 'requested', by: 'U123' }, 'cancelled', 'cancelled by U123'],
    [{ code: 'requested' }, 'cancelled', 'cancelled on request'],
    [{ code: 'timeout', within: '1 h' }, 'cancelled', 'the plan was not confirmed within 1 h'],
    [
      { code: 'path_refused', field: 'targetFiles', path: '.env', detail: 'a secret file' },
      'failed',
      'targetFiles: .env is refused: a secret file',
    ],
    [
      { code: 'budget', detail: 'cost $5.10 of $5.00', kept: 'kept.diff' },
      'failed',
      'budget exhausted: cost $5.10 of $5.00 (the work so far is kept in kept.diff)',
    ],
    [{ code: 'checks_failed', detail: 'test exited 1' }, 'failed', 'checks failed: test exited 1'],
  ] as const)('%j ends %s: "%s"', (outcome, status, sentence) => {
    const parsed = Outcome.parse(outcome);
    expect(outcomeStatus(parsed)).toBe(status);
    expect(describeOutcome(parsed)).toBe(sentence);
  });

  it('refuses a code it does not know and a code without the data it needs', () => {
    expect(Outcome.safeParse({ code: 'other', detail: 'x' }).success).toBe(false);
    expect(Outcome.safeParse({ code: 'checks_failed' }).success).toBe(false);
    expect(Outcome.safeParse({ code: 'rejected' }).success).toBe(false);
  });

  it('maps every error code to an outcome that fails or cancels the operation', () => {
    const codes: ErrorCode[] = [
      'config_invalid',
      'validation_failed',
      'not_found',
      'invalid_transition',
      'conflict',
      'unauthorized',
      'forbidden',
      'check_failed',
      'agent_failed',
      'budget_exhausted',
      'cancelled',
      'git_failed',
      'forge_failed',
      'path_refused',
      'secret_found',
      'unavailable',
    ];
    for (const code of codes) {
      const outcome = outcomeOfError(code, 'why');
      expect(['failed', 'cancelled']).toContain(outcomeStatus(outcome));
      expect(describeOutcome(outcome)).toContain('why');
    }
    expect(outcomeOfError('secret_found', 'x').code).toBe('secret_found');
    expect(outcomeOfError('check_failed', 'x').code).toBe('checks_failed');
  });

  it('maps the texts an outcome carries, never its code', () => {
    const mapped = mapOutcomeText({ code: 'rejected', by: 'alice', note: '/home/a/x' }, (t) => t.toUpperCase());
    expect(mapped).toEqual({ code: 'rejected', by: 'ALICE', note: '/HOME/A/X' });
  });
});

// Typecheck-level: a code added to the union without its kind (status, retryable, sentence) does
// not compile. `npm run typecheck` fails when the @ts-expect-error below is no longer an error.
type Grown = Outcome | { code: 'brand_new'; detail: string };
// @ts-expect-error 'brand_new' has no kind: no status, no retryable, no description
export const incomplete: OutcomeKinds<Grown> = OUTCOME_KINDS;
export const complete: OutcomeKinds = OUTCOME_KINDS;
