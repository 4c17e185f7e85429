import { Review } from '@pullwright/core';
import { instructionsSection } from '../instructions/repository-instructions.ts';
import { reviewerPrompt } from '../role-prompts.ts';
import { askForJson } from './converse.ts';
import { enterPhase, finalRounds, interrupted, planText, resultOf, type Solve } from './solve-state.ts';
import type { Verdict } from './verify-phase.ts';

/**
 * review: the reviewer (look-only) judges the green change's diff against the request and
 * the plan. Accepted: ready. Changes asked for go to the fixer while repair rounds remain.
 */
export async function reviewPhase(solve: Solve, changed: string[]): Promise<Verdict> {
  const { input, state, edits } = solve;
  await enterPhase(solve, 'review');
  const diff = await input.diff();
  const checkSummary = state.checks
    .map(
      (c) => `${c.name}: ${c.passed ? 'pass' : `fail (pre-existing: ${c.failingTests.join(', ') || 'same as base'})`}`,
    )
    .join('\n');
  const reviewed = await askForJson(
    solve.converse,
    'reviewer',
    Review,
    reviewerPrompt(edits.canRead),
    `${input.task}${planText(state)}${instructionsSection(input.instructions, changed)}\n\nCheck results:\n${checkSummary}\n\nDiff:\n${diff.slice(0, 60_000)}`,
    edits.lookTools,
  );
  if ('stop' in reviewed) return { done: interrupted(solve, reviewed.stop) ?? resultOf(solve, 'stopped') };
  if (!reviewed.parsed.ok)
    return {
      done: resultOf(solve, 'invalid_review', `the reviewer's answer was invalid twice: ${reviewed.parsed.problem}`),
    };
  const review = reviewed.parsed.value;
  if (review.decision === 'accept') return { done: { ...resultOf(solve, 'ready'), review } };
  if (finalRounds(state) >= solve.maxRepairs)
    return {
      done: {
        ...resultOf(
          solve,
          'review_rejected',
          `the reviewer still asks for changes: ${review.must_fix.join('; ') || review.reasons.join('; ')}`,
        ),
        review,
      },
    };
  return {
    repair: `The reviewer asked for changes:\n${[...review.must_fix, ...review.reasons].map((m) => `- ${m}`).join('\n')}`,
  };
}
