import { ValidationError } from '@pullwright/core';
import type { RequestHandler } from 'express';

/** A UTF-16 half without its other half: no UTF-8 encoding exists for it (Redis, git and Slack all choke). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** C0 and C1 controls except tab and newline (a carriage return only as part of CRLF), and DEL. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|\r(?!\n)/;

/** Why a piece of text cannot be accepted, or undefined when it is fine. */
export function textProblem(text: string): string | undefined {
  if (LONE_SURROGATE.test(text)) return 'is not well-formed Unicode (a lone surrogate)';
  const control = CONTROL.exec(text);
  if (control) {
    const code = control[0].codePointAt(0) ?? 0;
    return `contains the control character U+${code.toString(16).toUpperCase().padStart(4, '0')}${code === 0 ? ' (NUL)' : ''}; only newline and tab are allowed`;
  }
  return undefined;
}

/** The first bad string in a parsed JSON value (keys included), with its field path. */
function firstProblem(value: unknown, at: string[]): { field: string; reason: string } | undefined {
  if (typeof value === 'string') {
    const reason = textProblem(value);
    return reason ? { field: at.join('.') || 'body', reason } : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const keyReason = textProblem(key);
    if (keyReason) return { field: [...at, '(key)'].join('.'), reason: `has a key that ${keyReason}` };
    const found = firstProblem(inner, [...at, key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * Refuses (400, naming the field) a JSON body with any text that is not well-formed Unicode
 * or carries control characters, before a route does any work. Such text used to be
 * accepted and break later: a lone surrogate left an operation stuck in `queued` that could
 * not be cancelled, a NUL failed the operation only at commit.
 */
export function wellFormedBody(): RequestHandler {
  return (req, _res, next) => {
    const problem = firstProblem(req.body, []);
    if (problem) {
      next(new ValidationError(`invalid body: ${problem.field} ${problem.reason}`, [problem]));
      return;
    }
    next();
  };
}
