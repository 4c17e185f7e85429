import { describeOutcome, type FailureCode, OUTCOME_KINDS, type Outcome } from '@pullwright/core';

/** The kept diff shown in the report at most; the whole diff is the `kept.diff` artifact. */
const DIFF_IN_REPORT = 6000;

/** One issue: a line, and optionally a trace shown under it as code. */
export type ReportIssue = string | { text: string; trace: string };

interface FailureReportInput {
  /** `Operation failed`, `Revision failed`. */
  title: string;
  /** What was asked (the request's first line). */
  request: string;
  /** Why it stopped: the recommendation is picked by its code, the summary is its sentence. */
  outcome: Outcome;
  /** Everything else that went wrong: failing checks with their first trace, reviewer must-fix items, fixer leftovers. */
  issues: ReportIssue[];
  /** Files the change touched before it stopped. */
  files: string[];
  /** The unpushed diff, and the artifact holding all of it. */
  keptDiff?: { diff: string; artifact: string } | undefined;
}

/** What a person should do next, per failure code: a code without one does not typecheck. */
const RECOMMENDATIONS = {
  budget:
    "Raise the operation's budget (turns, tokens, time or cost) and retry, or finish the change by hand from the kept diff.",
  spend_cap:
    'A daily spending cap of the policy is used up: retry after it resets, or raise budgets.repository_daily_usd / daily_usd in the policy.',
  stuck:
    'The same failure came back after repairs: read the first failing trace below, then retry with a more specific description (the file and the behaviour to change).',
  checks_failed:
    'Read the first failing trace of each check (TEST_REPORT.json, LINT_REPORT.json in the run record); fix it by hand from the kept diff, or retry with more specific instructions.',
  review_rejected:
    "Address the reviewer's must-fix items (REVIEW.json in the run record) by hand, or retry with them in the request.",
  invalid_plan: 'The planner did not answer with a valid plan twice: retry, or configure a stronger model (LLM_MODEL).',
  invalid_review:
    'The reviewer did not answer with valid JSON twice: retry, or configure a stronger model (LLM_MODEL).',
  no_change: 'The model changed nothing: describe the change more concretely (which file, what behaviour).',
  model: 'The model provider failed: check its status and the API key, then retry.',
  secret_found:
    'Remove the secret from the change (or mark a false positive in the repository policy) and retry; the secret was never pushed.',
  path_refused:
    'The change needs a path no operation may touch (protected, a secret file, a nested repository): make that part by hand, or retry without it.',
  forbidden: 'Ask someone with the needed role (IDENTITIES) to request or approve it.',
  conflict: 'Someone else changed the branch: bring it up to date by hand, or retry from a fresh request.',
  not_found:
    'Something the operation needs is gone (its base branch, its branch or pull request): restore it or retry against another base.',
  misconfigured:
    "Fix the repository's configuration named above (.pullwright.yml, package.json) or the service setting, then retry.",
  install_failed:
    'Read the install output above: fix the lock file or the install command (.pullwright.yml `install`) and retry.',
  sandbox: "Check the worker's sandbox (pullwright doctor), then retry.",
  forge_unavailable: 'The forge did not answer in time: retry once it is back.',
  git_failed: "A git command failed on the worker: read the worker's log, then retry.",
  stalled: "Workers kept dying on this job (memory, a kill): check the worker's logs, then retry.",
  internal: "A bug in Pullwright: report it with the operation's run record; a retry may get past it.",
} as const satisfies Record<FailureCode, string>;

/** For an outcome that is not a failure (a report is written for failures only). */
const DEFAULT_RECOMMENDATION =
  "Read the reason above and the operation's run record (its artifacts); retry once the cause is fixed.";

/** The code's recommendation; a retryable code says so (see core `OUTCOME_KINDS`). */
function recommendation(outcome: Outcome): string {
  if (!isFailure(outcome)) return DEFAULT_RECOMMENDATION;
  const retry = OUTCOME_KINDS[outcome.code].retryable
    ? ' Retrying it unchanged may succeed: the cause was not in the request or the repository.'
    : '';
  return `${RECOMMENDATIONS[outcome.code]}${retry}`;
}

function isFailure(outcome: Outcome): outcome is Extract<Outcome, { code: FailureCode }> {
  return OUTCOME_KINDS[outcome.code].status === 'failed';
}

/**
 * A failed operation's closing report in seed 000's failure format: Summary, Issues,
 * Partial changes (with the kept diff), Recommendation. Markdown, so the dashboard, the
 * PR's tracking comment and (converted) Slack show the same text. Inputs are redacted by
 * the caller.
 */
export function failureReport(input: FailureReportInput): string {
  // The reason is the summary; it is an issue of its own only when nothing more specific is known.
  const reason = describeOutcome(input.outcome);
  const listed = input.issues.length > 0 ? input.issues : [reason.split('\n')[0]!];
  const issues = listed.flatMap((i) =>
    typeof i === 'string'
      ? [`- ${oneLine(i)}`]
      : [
          `- ${oneLine(i.text)}`,
          '',
          '  ```',
          ...i.trace
            .replaceAll('```', "'''")
            .split('\n')
            .map((l) => `  ${l}`),
          '  ```',
        ],
  );
  const partial =
    input.files.length === 0
      ? ['No file was changed.']
      : [
          ...input.files.map((f) => `- \`${f}\``),
          ...(input.keptDiff
            ? [
                '',
                `The diff was kept (not pushed) as the \`${input.keptDiff.artifact}\` artifact:`,
                '',
                '```diff',
                clip(input.keptDiff.diff, DIFF_IN_REPORT).replaceAll('```', "'''"),
                '```',
              ]
            : []),
        ];
  return [
    `## ${input.title}`,
    '',
    '### Summary',
    `Attempted: ${oneLine(input.request)}. It stopped: ${oneLine(reason.split('\n')[0]!)}.`,
    '',
    '### Issues',
    ...issues,
    '',
    '### Partial changes',
    ...partial,
    '',
    '### Recommendation',
    recommendation(input.outcome),
    '',
  ].join('\n');
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  return flat.length > 500 ? `${flat.slice(0, 500)}…` : flat;
}

function clip(text: string, max: number): string {
  return text.length <= max
    ? text.trimEnd()
    : `${text.slice(0, max).trimEnd()}\n… (${text.length - max} more characters in the artifact)`;
}
