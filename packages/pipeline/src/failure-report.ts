/** The kept diff shown in the report at most; the whole diff is the `kept.diff` artifact. */
const DIFF_IN_REPORT = 6000;

/** One issue: a line, and optionally a trace shown under it as code. */
export type ReportIssue = string | { text: string; trace: string };

export interface FailureReportInput {
  /** `Operation failed`, `Revision failed`. */
  title: string;
  /** What was asked (the request's first line). */
  request: string;
  /** Why it stopped, as the operation's `error` says it. */
  reason: string;
  /** The failure's kind (an agent outcome such as `checks_failed`), for the recommendation. */
  kind: string | undefined;
  /** Everything else that went wrong: failing checks with their first trace, reviewer must-fix items, fixer leftovers. */
  issues: ReportIssue[];
  /** Files the change touched before it stopped. */
  files: string[];
  /** The unpushed diff, and the artifact holding all of it. */
  keptDiff?: { diff: string; artifact: string } | undefined;
}

/** What a person should do next, per kind of failure. */
const RECOMMENDATIONS: Record<string, string> = {
  budget:
    "Raise the operation's budget (turns, tokens, time or cost) and retry, or finish the change by hand from the kept diff.",
  stuck:
    'The same failure came back after repairs: read the first failing trace below, then retry with a more specific description (the file and the behaviour to change).',
  checks_failed:
    'Read the first failing trace of each check (TEST_REPORT.json, LINT_REPORT.json in the run record); fix it by hand from the kept diff, or retry with more specific instructions.',
  review_rejected:
    "Address the reviewer's must-fix items (REVIEW.json in the run record) by hand, or retry with them in the request.",
  invalid_plan: 'The planner did not answer with a valid plan twice: retry, or configure a stronger model (LLM_MODEL).',
  invalid_review:
    'The reviewer did not answer with valid JSON twice: retry, or configure a stronger model (LLM_MODEL).',
  no_changes: 'The model changed nothing: describe the change more concretely (which file, what behaviour).',
};
const DEFAULT_RECOMMENDATION =
  "Read the reason above and the operation's run record (its artifacts); retry once the cause is fixed.";

/**
 * A failed operation's closing report in seed 000's failure format: Summary, Issues,
 * Partial changes (with the kept diff), Recommendation. Markdown, so the dashboard, the
 * PR's tracking comment and (converted) Slack show the same text. Inputs are redacted by
 * the caller.
 */
export function failureReport(input: FailureReportInput): string {
  // The reason is the summary; it is an issue of its own only when nothing more specific is known.
  const listed = input.issues.length > 0 ? input.issues : [input.reason.split('\n')[0]!];
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
    `Attempted: ${oneLine(input.request)}. It stopped: ${oneLine(input.reason.split('\n')[0]!)}.`,
    '',
    '### Issues',
    ...issues,
    '',
    '### Partial changes',
    ...partial,
    '',
    '### Recommendation',
    RECOMMENDATIONS[input.kind ?? ''] ?? DEFAULT_RECOMMENDATION,
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
