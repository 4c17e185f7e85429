import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { extractModelJson } from './extract-model-json.ts';

const Replies = z.object({
  replies: z.array(z.object({ comment: z.string(), outcome: z.enum(['fixed', 'declined']) })),
});
const reply = '{"replies":[{"comment":"C1","outcome":"fixed"}]}';
const value = { replies: [{ comment: 'C1', outcome: 'fixed' }] };

describe('extractModelJson', () => {
  it.each([
    ['bare JSON', reply],
    ['a fenced block', `Done.\n\`\`\`json\n${reply}\n\`\`\``],
    ['prose with code braces before it', `I changed \`function f() { return 1; }\` and {this}.\n\n${reply}`],
    ['an unclosed brace in quoted code before it', `The bug was \`if (x) {\` never closed.\n${reply}`],
    ['braces inside its strings', '{"replies":[{"comment":"C1 {not a brace}","outcome":"fixed"}]}'],
    [
      'an earlier draft that does not match',
      `Draft: {"replies":[{"comment":"C1","outcome":"maybe"}]}\nFinal: ${reply}`,
    ],
  ])('reads %s', (_name, text) => {
    const parsed = extractModelJson(Replies, text);
    expect(parsed.ok && parsed.value.replies[0]!.comment).toBe(
      text.includes('{not a brace}') ? 'C1 {not a brace}' : value.replies[0]!.comment,
    );
  });

  it('takes the last matching object when the answer holds several', () => {
    const text = `${reply}\nOn reflection: {"replies":[{"comment":"C2","outcome":"declined"}]}`;
    expect(extractModelJson(Replies, text)).toEqual({
      ok: true,
      value: { replies: [{ comment: 'C2', outcome: 'declined' }] },
    });
  });

  it.each([
    ['no object at all', 'I could not do it.', 'the answer contains no JSON object'],
    ['an object that does not parse', '{"replies": [}', 'the JSON does not parse'],
    ['an object off the schema', '{"replies":[{"comment":"C1","outcome":"maybe"}]}', 'replies.0.outcome'],
  ])('says why on %s', (_name, text, problem) => {
    const parsed = extractModelJson(Replies, text);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problem).toContain(problem);
  });
});
