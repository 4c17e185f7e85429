import { z } from 'zod';

export const PlanStep = z.object({
  /** `T1`…`Tn` in execution order; assigned by `numberPlan`, whatever the model wrote. */
  id: z.string().optional(),
  title: z.string().min(1),
  files: z.array(z.string()).default([]),
  acceptance: z.string().min(1),
  /** Names of the repository checks that verify this step (per-step verification runs them after it). */
  tests: z.array(z.string()).default([]),
});
export type PlanStep = z.infer<typeof PlanStep>;

export const Plan = z.object({
  /** `plan_0001`: one plan per operation; assigned by `numberPlan`. */
  plan_id: z.string().optional(),
  summary: z.string().min(1),
  steps: z.array(PlanStep).min(1, 'needs at least one step'),
  risks: z.array(z.string()).default([]),
});
export type Plan = z.infer<typeof Plan>;

/** The one plan id of an operation (seed 002: `plan_0001` unless one is given). */
export const PLAN_ID = 'plan_0001';

/**
 * Stable ids (seed 002): the plan is `plan_0001`, its steps `T1`…`Tn` in the order they run.
 * Assigned here, never taken from the model, so the plan, the events, the artifacts and the
 * dashboard name the same task the same way on every run and every resume.
 */
export function numberPlan(plan: Plan): Plan {
  return { ...plan, plan_id: PLAN_ID, steps: plan.steps.map((step, i) => ({ ...step, id: `T${i + 1}` })) };
}

/** Seed 000's `MAX_CHANGES_PER_REQUEST`: a request is a small change; a longer plan is sent back. */
export const MAX_PLAN_STEPS = 10;

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

export const Review = z.object({
  decision: z.enum(['accept', 'request_changes']),
  reasons: z.array(z.string()).default([]),
  must_fix: z.array(z.string()).default([]),
});
export type Review = z.infer<typeof Review>;

/** The fixer's outcome (seed 000, "Code Fixer Output Format"): strict JSON, snake_case keys. */
export const FixReport = z.strictObject({
  status: z.enum(['fixed', 'failed']),
  fixes_applied: z
    .array(
      z.strictObject({
        file: z.string().min(1),
        line: z.number().int().nonnegative().nullable(),
        error_type: z.string().min(1),
        description: z.string().min(1),
        success: z.boolean().optional(),
      }),
    )
    .default([]),
  build_status: z.enum(['pass', 'fail']),
  remaining_errors: z.array(z.string()).default([]),
  attempts: z.number().int().positive(),
});
export type FixReport = z.infer<typeof FixReport>;
