import type { NewOperation } from '@pullwright/queue';

/** The local forge repository `npm start` creates for the first-run demo. */
export const DEMO_REPO = 'demo/sample-slugify';

/** The one request the bundled recording answers: the demo operation `npm start` seeds. */
export const DEMO_REQUEST: NewOperation = {
  type: 'debug',
  repo: DEMO_REPO,
  baseBranch: 'main',
  description: 'slugify keeps spaces: "Hello Big World" becomes "hello-big world"',
  context: {
    errorText:
      "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n+ actual - expected\n\n+ 'hello-big world'\n- 'hello-big-world'",
  },
  requester: { source: 'api', user: 'demo' },
};

/**
 * Demo mode (no model key, no LLM_PROVIDER, no REPLAY_FILE): the bundled recording answers
 * only the demo's own request. Anything else is refused with this, never answered with a
 * recording of a different request.
 */
const WAY_OUT =
  'set ANTHROPIC_API_KEY (or OPENAI_API_KEY with OPENAI_BASE_URL), or LLM_PROVIDER=replay ' +
  'with REPLAY_FILE=<a recorded transcript>, and restart.';

export const DEMO_REFUSAL =
  'Pullwright is in demo mode: no model is configured, so it can only replay the bundled demo operation. ' +
  `To run new operations ${WAY_OUT}`;

/**
 * A change request (or a message to the model) on the demo operation: the recording holds the
 * demo's first run only, so replaying it would answer a different question ("no change was
 * needed"). Refused with this instead.
 */
export const DEMO_REVISION_REFUSAL =
  'Pullwright is in demo mode: the bundled recording answers only the demo request, so no model can read ' +
  `a change request or a message. To request changes ${WAY_OUT}`;

/** The seeded demo operation: the demo repository and the demo's exact request. */
export function isDemoRequest(op: { repo: string; description: string }): boolean {
  return op.repo === DEMO_REPO && op.description === DEMO_REQUEST.description;
}
