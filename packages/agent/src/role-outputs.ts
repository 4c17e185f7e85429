import { z } from 'zod';

export const Plan = z.object({
  summary: z.string().min(1),
  steps: z
    .array(
      z.object({ title: z.string().min(1), files: z.array(z.string()).default([]), acceptance: z.string().min(1) }),
    )
    .min(1, 'needs at least one step'),
  risks: z.array(z.string()).default([]),
});
export type Plan = z.infer<typeof Plan>;

export const Review = z.object({
  decision: z.enum(['accept', 'request_changes']),
  reasons: z.array(z.string()).default([]),
  must_fix: z.array(z.string()).default([]),
});
export type Review = z.infer<typeof Review>;
