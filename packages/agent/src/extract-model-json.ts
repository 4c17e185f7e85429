import type { z } from 'zod';

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Where a JSON object can start: `{` then a key or `}` (a code block's `{` is followed by code). */
const OBJECT_START = /\{\s*["}]/g;

/** The `{…}` that starts at `start`, braces inside strings ignored; undefined when it never closes. */
function balancedObject(text: string, start: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

/**
 * The one reader of JSON in a model's answer (plans, reviews, revision replies). Models wrap
 * JSON in fences, add a sentence around it, or quote code with braces despite instructions, so
 * every outermost object in the text is a candidate and the last one that matches the schema
 * wins (the answer's conclusion comes last). The object itself must match the schema exactly; the
 * problem says why nothing did, in words the model can act on when asked again.
 */
export function extractModelJson<S extends z.ZodType>(schema: S, text: string): Parsed<z.infer<S>> {
  // Outermost objects only: an object nested in a candidate is part of it, not an answer.
  const candidates: string[] = [];
  let covered = 0;
  for (const m of text.matchAll(OBJECT_START)) {
    if (m.index < covered) continue;
    const candidate = balancedObject(text, m.index);
    if (candidate === undefined) continue;
    candidates.push(candidate);
    covered = m.index + candidate.length;
  }
  let problem: string | undefined;
  for (const candidate of candidates.reverse()) {
    let raw: unknown;
    try {
      raw = JSON.parse(candidate);
    } catch (err) {
      problem ??= `the JSON does not parse: ${(err as Error).message}`;
      continue;
    }
    const parsed = schema.safeParse(raw);
    if (parsed.success) return { ok: true, value: parsed.data };
    problem ??= parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  }
  return { ok: false, problem: problem ?? 'the answer contains no JSON object' };
}
