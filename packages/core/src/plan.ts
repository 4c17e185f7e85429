import { z } from 'zod';

/** One task of a plan: what the coder does, where, and how it is known to be done. */
export const PlanStep = z.object({
  /** `T1`…`Tn` in execution order; assigned by the agent's `numberPlan`, whatever the model wrote. */
  id: z.string().optional(),
  title: z.string().min(1),
  files: z.array(z.string()).default([]),
  acceptance: z.string().min(1),
  /** Names of the repository checks that verify this step (per-step verification runs them after it). */
  tests: z.array(z.string()).default([]),
});
export type PlanStep = z.infer<typeof PlanStep>;

/**
 * The planner's plan: the one declaration of its shape. The agent parses the planner's answer
 * with it, the operation record stores it, the `phase` and `plan_confirmation` events carry it,
 * and every view reads it from here.
 */
export const Plan = z.object({
  /** `plan_0001`: one plan per operation; assigned by the agent's `numberPlan`. */
  plan_id: z.string().optional(),
  summary: z.string().min(1),
  steps: z.array(PlanStep).min(1, 'needs at least one step'),
  risks: z.array(z.string()).default([]),
});
export type Plan = z.infer<typeof Plan>;
