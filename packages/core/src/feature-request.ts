import { z } from 'zod';
import { BranchName, FeatureRequestId, OperationPriority, RepoSlug, Requester } from './operation.ts';

/**
 * A feature request's life (seed 001, "Feature Request Pipeline"): captured (`new`, its
 * analysis queued) → `analyzed` (or `analysis_failed`) → triaged (`accepted` | `declined`)
 * → `implementing` (an /implement operation carries its acceptance criteria) → `merged`
 * (waiting for the configured deploy) → `released`.
 */
const FEATURE_REQUEST_STATUSES = [
  'new',
  'analyzed',
  'analysis_failed',
  'accepted',
  'declined',
  'implementing',
  'merged',
  'released',
] as const;
export const FeatureRequestStatus = z.enum(FEATURE_REQUEST_STATUSES);
export type FeatureRequestStatus = z.infer<typeof FeatureRequestStatus>;

const Criterion = z.string().trim().min(1, 'must not be empty').max(2000);

/**
 * The model's analysis, exactly (strict JSON: an unknown key, a missing criterion or a
 * priority outside the four is a failed analysis, not a guess).
 */
export const FeatureAnalysis = z.strictObject({
  /** What the requester wants, in one or two sentences. */
  intent: z.string().trim().min(1).max(2000),
  /** Modules, packages or paths the change will likely touch. */
  affectedModules: z.array(z.string().trim().min(1).max(300)).max(50),
  priority: OperationPriority,
  acceptanceCriteria: z.array(Criterion).min(1).max(50),
});
export type FeatureAnalysis = z.infer<typeof FeatureAnalysis>;

const FeatureTriage = z.object({
  decision: z.enum(['accepted', 'declined']),
  by: z.string(),
  at: z.string(),
  reason: z.string().max(2000).optional(),
});

export const FeatureRequest = z.object({
  id: FeatureRequestId,
  repo: RepoSlug,
  baseBranch: BranchName,
  title: z.string().min(1).max(200),
  description: z.string().min(1).max(20_000),
  requester: Requester,
  status: FeatureRequestStatus,
  /** Optimistic-concurrency counter, as on operations. */
  version: z.number().int().nonnegative(),
  analysis: FeatureAnalysis.optional(),
  /** Why the analysis failed (the model's answer was not the JSON asked for, the model was unreachable). */
  analysisError: z.string().optional(),
  /** The analysis's priority and criteria until triage changes them; what "Implement" hands over. */
  priority: OperationPriority.default('medium'),
  acceptanceCriteria: z.array(Criterion).max(50).default([]),
  triage: FeatureTriage.optional(),
  /** The /implement operation, once "Implement" was pressed (the latest, after a retry). */
  operationId: z.string().optional(),
  pullRequest: z.object({ number: z.number().int().positive(), url: z.string() }).optional(),
  releasedAt: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type FeatureRequest = z.infer<typeof FeatureRequest>;

/** Triage and "Implement" act only from these statuses; anything else is a 409 naming the status. */
export const TRIAGE_FROM: ReadonlySet<FeatureRequestStatus> = new Set(['analyzed', 'accepted', 'declined']);
export const IMPLEMENT_FROM: ReadonlySet<FeatureRequestStatus> = new Set(['analyzed', 'accepted', 'implementing']);
