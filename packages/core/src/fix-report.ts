import { z } from 'zod';

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
