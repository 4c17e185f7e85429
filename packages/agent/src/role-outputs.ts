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

/**
 * The planner's answer for a repository: at most MAX_PLAN_STEPS steps, and every check a step
 * names must exist there. (`Plan` itself stays open: a person may add a step at confirmation.)
 */
export function planSchemaFor(checkNames: readonly string[]) {
  return Plan.superRefine((plan, ctx) => {
    if (plan.steps.length > MAX_PLAN_STEPS)
      ctx.addIssue({
        code: 'custom',
        path: ['steps'],
        message: `at most ${MAX_PLAN_STEPS} steps: split the request or make the steps larger`,
      });
    plan.steps.forEach((step, i) => {
      for (const [j, name] of step.tests.entries()) {
        if (!checkNames.includes(name))
          ctx.addIssue({
            code: 'custom',
            path: ['steps', i, 'tests', j],
            message: `no check named "${name}"; the repository's checks are: ${checkNames.join(', ') || 'none'}`,
          });
      }
    });
  });
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
