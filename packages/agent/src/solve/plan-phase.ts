import { instructionsSection } from '../instructions/repository-instructions.ts';
import { numberPlan, PlannerAnswer, withKnownChecks } from '../role-outputs.ts';
import { plannerPrompt } from '../role-prompts.ts';
import { askForJson } from './converse.ts';
import { enterPhase, interrupted, resultOf, type Solve, type SolveResult } from './solve-state.ts';

/**
 * plan: the planner (look-only) answers with a plan, checked against the schema and the
 * repository's checks; `onPlan` may change it (a person confirming it). A resumed solve keeps
 * the plan its earlier attempt settled. Returns a result only when the solve ends here.
 */
export async function planPhase(solve: Solve): Promise<SolveResult | undefined> {
  const { input, state, journal, edits, checkNames } = solve;
  await enterPhase(solve, 'plan');
  const planned = await askForJson(
    solve.converse,
    'planner',
    PlannerAnswer,
    plannerPrompt(checkNames, edits.canRead),
    `${input.task}${instructionsSection(input.instructions, input.targetFiles ?? [])}\n\nRepository map:\n${input.repoMap}`,
    edits.lookTools,
  );
  if ('stop' in planned) return interrupted(solve, planned.stop) ?? resultOf(solve, 'stopped');
  if (!planned.parsed.ok)
    return resultOf(solve, 'invalid_plan', `the planner's plan was invalid twice: ${planned.parsed.problem}`);
  const known = withKnownChecks(numberPlan(planned.parsed.value), checkNames);
  state.plan = known.plan;
  await enterPhase(solve, 'plan', { plan: known.plan, ...(known.note ? { note: known.note } : {}) });
  if (journal.plan) {
    state.plan = journal.plan;
    await input.onPlan?.(state.plan, { resumed: true });
  } else {
    // A person confirming the plan may add a step: the ids are assigned again, in order.
    state.plan = numberPlan((await input.onPlan?.(known.plan, { resumed: false })) ?? known.plan);
    await journal.recordPlan(state.plan);
  }
  return undefined;
}
