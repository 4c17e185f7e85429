import { ValidationError } from '@pullwright/core';

/**
 * The deepest nesting of arrays and objects a request body may have. Every payload we read
 * (operations, Slack blocks, GitHub webhooks) stays under 20; JSON nested 5,000 deep made the
 * recursive checks after parsing overflow the stack and answer 500, before authentication on
 * `POST /v1/session`.
 */
const MAX_JSON_DEPTH = 64;

const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The deepest nesting in a JSON text, read byte by byte before it is parsed (brackets inside
 * strings do not count): linear, no recursion, so any body can be measured.
 */
function jsonDepth(body: Uint8Array): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPEN.has(c)) deepest = Math.max(deepest, ++depth);
    else if (CLOSE.has(c)) depth--;
  }
  return deepest;
}

/** Throws a 400 (ValidationError naming the field) for a body nested deeper than MAX_JSON_DEPTH. */
export function refuseDeepJson(body: Uint8Array | string, field = 'body'): void {
  const depth = jsonDepth(typeof body === 'string' ? Buffer.from(body) : body);
  if (depth <= MAX_JSON_DEPTH) return;
  const reason = `is nested ${depth} levels deep; at most ${MAX_JSON_DEPTH} are accepted`;
  throw new ValidationError(`invalid body: ${field} ${reason}`, [{ field, reason }]);
}
