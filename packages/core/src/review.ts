import { z } from 'zod';

/** The reviewer's verdict on the change: stored on the operation, shown by the views. */
export const Review = z.object({
  decision: z.enum(['accept', 'request_changes']),
  reasons: z.array(z.string()).default([]),
  must_fix: z.array(z.string()).default([]),
});
export type Review = z.infer<typeof Review>;
