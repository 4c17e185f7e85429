import { z } from 'zod';

/**
 * The seed's agent positions as a ladder: each role may do everything the roles below it
 * may (propose → commit to feature branches → merge → deploy → administer).
 */
export const ROLES = ['proposer', 'committer', 'merger', 'deployer', 'admin'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** What someone can do to an operation; each has a minimum role (see `DEFAULT_PERMISSIONS`). */
export const ACTIONS = ['request', 'revise', 'approve', 'reject', 'cancel', 'merge', 'deploy'] as const;
export const Action = z.enum(ACTIONS);
export type Action = z.infer<typeof Action>;

/**
 * Issue triggers on, with the `pullwright` label; CI revisions on, two in a row per PR before
 * a person must look, started 2 minutes after the first red check so the others can finish.
 */
export const DEFAULT_TRIGGERS = {
  issues: { enabled: true, label: 'pullwright' },
  ci: { enabled: true, max_attempts: 2, settle_ms: 2 * 60_000 },
  allow_bots: [] as string[],
};
const ResolvedPathRule = z.object({
  name: z.string(),
  paths: z.array(z.string()),
  required: z.number().int(),
  roles: z.array(Role),
  groups: z.array(z.string()),
  not_requester: z.boolean(),
});
export type ResolvedPathRule = z.infer<typeof ResolvedPathRule>;

/**
 * Service ∧ repository, every field resolved: what the pipeline and the approval rules read,
 * and what the operation record keeps (fixed at claim). The file formats it is resolved from
 * and the resolution live in @pullwright/policy; this shape is core's so the record is typed.
 */
export const Policy = z.object({
  permissions: z.record(Action, Role),
  approvals: z.object({
    required: z.number().int(),
    high_risk: z.object({ required: z.number().int(), not_requester: z.boolean() }),
  }),
  path_rules: z.array(ResolvedPathRule),
  protected_paths: z.array(z.string()),
  auto_approve: z.object({
    enabled: z.boolean(),
    max_lines: z.number().int(),
    kinds: z.array(z.enum(['tests', 'docs'])),
  }),
  budgets: z.object({
    turns: z.number().optional(),
    tokens: z.number().optional(),
    wall_ms: z.number().optional(),
    cost_usd: z.number().optional(),
    pause_at_percent: z.number().optional(),
    decision_timeout_ms: z.number().optional(),
    estimate_usd: z.number().optional(),
    repository_daily_usd: z.number().optional(),
    daily_usd: z.number().optional(),
  }),
  branches: z.object({ prefix: z.string() }),
  /** Absent from snapshots taken before triggers existed: read as the defaults. */
  triggers: z
    .object({
      issues: z.object({ enabled: z.boolean(), label: z.string() }),
      ci: z.object({ enabled: z.boolean(), max_attempts: z.number().int(), settle_ms: z.number().int() }),
      allow_bots: z.array(z.string()),
    })
    .default(() => structuredClone(DEFAULT_TRIGGERS)),
  /** Defaulted: a policy fixed on an operation before this key existed still reads. */
  verification: z.object({ per_step: z.boolean() }).default({ per_step: false }),
  deploy: z
    .object({
      on_merge: z.boolean(),
      target: z.union([
        z.object({ kind: z.enum(['webhook', 'railway']), url: z.string().optional(), url_env: z.string().optional() }),
        z.object({ kind: z.literal('github_deployment'), environment: z.string() }),
      ]),
      rollback: z.object({ url: z.string().optional(), url_env: z.string().optional() }).optional(),
      status: z.object({ url: z.string().optional(), poll_ms: z.number(), timeout_ms: z.number() }),
    })
    .optional(),
});
export type Policy = z.infer<typeof Policy>;
