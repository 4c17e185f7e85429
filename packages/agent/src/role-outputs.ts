import { Plan } from '@pullwright/core';

/** The one plan id of an operation (seed 002: `plan_0001` unless one is given). */
const PLAN_ID = 'plan_0001';

/**
 * Stable ids (seed 002): the plan is `plan_0001`, its steps `T1`…`Tn` in the order they run.
 * Assigned here, never taken from the model, so the plan, the events, the artifacts and the
 * dashboard name the same task the same way on every run and every resume.
 */
export function numberPlan(plan: Plan): Plan {
  return { ...plan, plan_id: PLAN_ID, steps: plan.steps.map((step, i) => ({ ...step, id: `T${i + 1}` })) };
}

/** Seed 000's `MAX_CHANGES_PER_REQUEST`: a request is a small change; a longer plan is sent back. */
const MAX_PLAN_STEPS = 10;

/** The planner's answer: at most MAX_PLAN_STEPS steps. (`Plan` itself stays open: a person may add a step at confirmation.) */
export const PlannerAnswer = Plan.refine((plan) => plan.steps.length <= MAX_PLAN_STEPS, {
  path: ['steps'],
  message: `at most ${MAX_PLAN_STEPS} steps: split the request or make the steps larger`,
});

/**
 * A plan whose steps name only checks the repository has, and a note naming what was dropped.
 * A step's `tests` only selects its per-step verification (every check still runs before the
 * change is published), so a check the planner made up selects nothing: it is dropped and
 * said, never a reason to fail the operation.
 */
export function withKnownChecks(plan: Plan, checkNames: readonly string[]): { plan: Plan; note?: string } {
  const dropped: string[] = [];
  const steps = plan.steps.map((step, i) => {
    const unknown = step.tests.filter((name) => !checkNames.includes(name));
    for (const name of unknown) dropped.push(`${step.id ?? `step ${i + 1}`} named "${name}"`);
    return unknown.length === 0 ? step : { ...step, tests: step.tests.filter((name) => checkNames.includes(name)) };
  });
  if (dropped.length === 0) return { plan };
  return {
    plan: { ...plan, steps },
    note: `dropped checks the repository does not have (${dropped.join(', ')}); its checks are: ${checkNames.join(', ') || 'none'}`,
  };
}
