import { z } from 'zod';

/** The shapes environment values take; each parses the text of one variable. */

export const text = z.string();
export const url = z.url();
/** Tokens and keys people choose: short ones are guessable. */
export const longSecret = z.string().min(16, 'must be at least 16 characters');
export const positiveInt = z.coerce.number().int().positive();
export const nonNegativeInt = z.coerce.number().int().nonnegative();

const PORT_RANGE = 'must be a port number, 0-65535';
export const tcpPort = z.coerce.number({ error: PORT_RANGE }).int(PORT_RANGE).min(0, PORT_RANGE).max(65535, PORT_RANGE);

export const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** `a, b,,c` → `['a', 'b', 'c']`. */
export const commaList = z.string().transform((raw) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** JSON text, then `schema` on the parsed value. */
export function jsonText<S extends z.ZodType>(schema: S) {
  return z
    .string()
    .transform((raw, ctx) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);
}
