import {
  BranchName,
  Budget,
  FeatureContext,
  FeatureRequestStatus,
  OperationContext,
  OperationPriority,
  OperationStatus,
  OperationType,
  RepoSlug,
  TargetFiles,
} from '@pullwright/core';
import { z } from 'zod';

export const CreateOperationBody = z
  .object({
    type: OperationType,
    repo: RepoSlug.optional(),
    baseBranch: BranchName.default('main'),
    description: z.string().trim().min(1, 'must not be empty').max(20_000),
    context: OperationContext.default({}),
    budget: Budget.strict().optional(),
    priority: OperationPriority.default('medium'),
    targetFiles: TargetFiles.default([]),
    /** Omitted: the policy decides; false is refused (400) where the policy allows no auto-approval. */
    approvalRequired: z.boolean().optional(),
    featureContext: FeatureContext.omit({ featureRequestId: true }).strict().optional(),
    /** Show the plan and wait for Start / Modify / Cancel before any code is written. */
    confirmPlan: z.boolean().optional(),
    /** `github`: a dashboard user signed in with GitHub (the dashboard router sets it from the session). */
    source: z.enum(['api', 'dashboard', 'github']).default('api'),
    user: z.string().min(1).max(200).default('api'),
  })
  .strict();

/**
 * The head an approval binds to: the whole sha. A prefix would have matched nothing (the
 * comparison is exact) and would bind weakly: a commit with the same 7-character prefix is
 * cheap to make.
 */
export const HeadSha = z
  .string()
  .regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, 'must be the full head commit sha (40 or 64 hex characters)');

export const ApproveBody = z
  .object({
    headSha: HeadSha.optional(),
    user: z.string().min(1).max(200).default('api'),
  })
  .strict();
export const RejectBody = z
  .object({ reason: z.string().max(2000).optional(), user: z.string().min(1).max(200).default('api') })
  .strict();
export const CancelBody = z.object({ user: z.string().min(1).max(200).default('api') }).strict();

export const ListQuery = z.object({
  status: OperationStatus.optional(),
  repo: RepoSlug.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const OperationIdParam = z.string().regex(/^[a-z0-9]{6,40}$/, 'not an operation id');

export const MessageBody = z
  .object({
    text: z.string().trim().min(1, 'must not be empty').max(10_000),
    user: z.string().min(1).max(200).optional(),
  })
  .strict();

/** `POST /v1/operations/:id/revise`: what should change, in words; it becomes a revision of the PR. */
export const ReviseBody = z
  .object({
    instruction: z.string().trim().min(1, 'must not be empty').max(10_000),
    user: z.string().min(1).max(200).optional(),
  })
  .strict();

/** Slack `/feature` and the dashboard capture the same way: a description, for a repository. */
export const CreateFeatureRequestBody = z
  .object({
    repo: RepoSlug.optional(),
    baseBranch: BranchName.default('main'),
    description: z.string().trim().min(1, 'must not be empty').max(20_000),
    user: z.string().min(1).max(200).default('api'),
  })
  .strict();

export const FeatureRequestListQuery = z.object({
  status: FeatureRequestStatus.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const TriageBody = z
  .object({
    decision: z.enum(['accepted', 'declined']),
    reason: z.string().trim().max(2000).optional(),
    priority: OperationPriority.optional(),
    acceptanceCriteria: FeatureContext.shape.acceptanceCriteria.optional(),
    user: z.string().min(1).max(200).default('api'),
  })
  .strict();

export const ImplementBody = z
  .object({ baseBranch: BranchName.optional(), user: z.string().min(1).max(200).default('api') })
  .strict();

export const UserOnlyBody = z.object({ user: z.string().min(1).max(200).default('api') }).strict();
