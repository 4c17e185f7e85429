import { ValidationError } from '@pullwright/core';
import type { z } from 'zod';

/** Parses or throws a ValidationError naming every bad field (the handler turns it into a 400). */
export function validate<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.flatMap((i) =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((k) => ({ field: [...i.path, k].join('.'), reason: 'unknown field' }))
      : [{ field: i.path.join('.') || where, reason: i.message }],
  );
  throw new ValidationError(`invalid ${where}: ${fields.map((f) => `${f.field} ${f.reason}`).join('; ')}`, fields);
}
