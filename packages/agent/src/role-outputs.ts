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

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * Reads a JSON object out of a model's answer. Models wrap JSON in fences or add a sentence
 * despite instructions; the object itself must still match the schema exactly.
 */
export function parseRoleOutput<S extends z.ZodType>(schema: S, text: string): Parsed<z.infer<S>> {
  const unfenced = text.replace(/```(?:json)?/gi, '');
  const start = unfenced.indexOf('{');
  const end = unfenced.lastIndexOf('}');
  if (start === -1 || end <= start) return { ok: false, problem: 'the answer contains no JSON object' };
  let raw: unknown;
  try {
    raw = JSON.parse(unfenced.slice(start, end + 1));
  } catch (err) {
    return { ok: false, problem: `the JSON does not parse: ${(err as Error).message}` };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      problem: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '),
    };
  }
  return { ok: true, value: parsed.data };
}
