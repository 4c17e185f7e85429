import { anthropicStream, type Responder, sse } from '@pullwright/agent/testing';

/** The planner's plan for the sample repository's bug (slugify replaces only the first space). */
export const SLUGIFY_PLAN = {
  summary: 'slugify replaces only the first space; split on whitespace instead.',
  steps: [{ title: 'Fix slugify', files: ['src/slugify.js'], acceptance: 'npm test passes' }],
  risks: [],
};
export const SLUGIFY_ACCEPT = {
  decision: 'accept',
  reasons: ['root cause fixed and covered by the existing tests'],
  must_fix: [],
};
export const FIXED_LINE = "  return title.trim().toLowerCase().split(/\\s+/).join('-');";

/** The model every scripted Anthropic turn answers as, and what each turn reports it used. */
export const SCRIPTED_MODEL = 'claude-sonnet-5-5';
export const SCRIPTED_USAGE = { input_tokens: 1200, output_tokens: 150, cache_read_input_tokens: 800 };

let toolSeq = 0;
/** A streamed Messages API turn that answers with text. */
export const aText = (text: string): Responder =>
  sse(
    anthropicStream({
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: SCRIPTED_USAGE,
      model: SCRIPTED_MODEL,
    }),
  );
/** A streamed Messages API turn that calls one tool. */
export const aTool = (name: string, input: unknown): Responder =>
  sse(
    anthropicStream({
      content: [{ type: 'tool_use', id: `toolu_${++toolSeq}`, name, input }],
      stop_reason: 'tool_use',
      usage: SCRIPTED_USAGE,
      model: SCRIPTED_MODEL,
    }),
  );

/** The seven turns of a /debug run that fixes the sample repository red → green: plan, code, review. */
export function slugifyFixScript(): Responder[] {
  return [
    aText(JSON.stringify(SLUGIFY_PLAN)),
    aTool('run_check', { name: 'test' }),
    aTool('read_file', { path: 'src/slugify.js' }),
    aTool('edit_file', {
      path: 'src/slugify.js',
      oldText: "  return title.toLowerCase().replace(' ', '-');",
      newText: FIXED_LINE,
    }),
    aTool('run_check', { name: 'test' }),
    aText('Root cause: replace() with a string replaces once. Fixed by splitting on whitespace.'),
    aText(JSON.stringify(SLUGIFY_ACCEPT)),
  ];
}
