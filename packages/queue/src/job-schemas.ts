import { z } from 'zod';

/** The queue every code operation job goes through: runs, revisions and merges. */
export const CODE_OPERATIONS_QUEUE = 'code-operations';

export const RunJob = z.object({ opId: z.string().min(1) });
export const MergeJob = z.object({ opId: z.string().min(1), headSha: z.string().min(7) });

export const JOB_SCHEMAS = { run: RunJob, merge: MergeJob } as const;
export type JobName = keyof typeof JOB_SCHEMAS;
export type JobPayload<N extends JobName> = z.infer<(typeof JOB_SCHEMAS)[N]>;
