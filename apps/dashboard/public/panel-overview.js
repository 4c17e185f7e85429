// The Overview tab: why it ended, the summary, then one card per part of the record.
import { renderChecks } from './card-checks.js';
import { renderEvidence } from './card-evidence.js';
import { renderFindings } from './card-findings.js';
import { renderPlan } from './card-plan.js';
import { renderReview } from './card-review.js';
import { renderRisk } from './card-risk.js';
import { renderVerification } from './card-verification.js';
import { card, h, withCode } from './dom.js';
import { renderFailureReport } from './run-record.js';

/** @import { Operation, OutcomeCode } from '@pullwright/core' */
/** @import { VerificationResult } from './card-verification.js' */

/** Records written before outcomes were stored: the title by status. */
const ERROR_TITLES = { failed: 'Why it failed', rejected: 'Rejected', cancelled: 'Cancelled' };

/**
 * The title of the "why it ended" card, per outcome code (a code without one fails
 * `npm run typecheck`); `null` for outcomes that need no card.
 * @type {Record<OutcomeCode, string | null>}
 */
const OUTCOME_TITLES = {
  merged: null,
  evaluated: null,
  rejected: 'Rejected',
  requested: 'Cancelled',
  timeout: 'Cancelled: timed out',
  checks_failed: 'Failed: checks',
  no_change: 'Failed: no changes',
  budget: 'Failed: budget exhausted',
  spend_cap: 'Refused: daily spending cap',
  stuck: 'Failed: stuck',
  review_rejected: 'Failed: the review rejected it',
  invalid_plan: 'Failed: invalid plan',
  invalid_review: 'Failed: invalid review',
  model: 'Failed: the model',
  secret_found: 'Blocked: a secret',
  path_refused: 'Refused: a path',
  forbidden: 'Forbidden',
  conflict: 'Failed: conflict',
  not_found: 'Failed: not found',
  misconfigured: 'Could not start',
  install_failed: 'Failed: dependency install',
  sandbox: 'Failed: sandbox',
  forge_unavailable: 'Failed: forge unavailable',
  git_failed: 'Failed: git',
  stalled: 'Failed: workers died',
  internal: 'Failed: internal error',
};

/** @param {Operation} op */
function summary(op) {
  const text = op.summary || op.plan?.summary;
  if (text) return h('p', { class: 'summary-text' }, withCode(text));
  return h(
    'p',
    { class: 'muted' },
    ['queued', 'running'].includes(op.status)
      ? 'The agent writes its summary when it finishes.'
      : 'No summary was recorded.',
  );
}

/**
 * The fields of the operation this panel shows: it is redrawn only when one of them changed
 * (a redraw closes the check output someone opened).
 * @param {Operation} op
 * @param {VerificationResult | null | undefined} verification
 */
export function overviewKey(op, verification) {
  return JSON.stringify([
    op.plan,
    op.summary,
    op.review,
    op.evidence,
    op.error,
    op.outcome,
    op.failureReport,
    op.checks,
    op.findings,
    op.risk,
    op.filesChanged,
    op.status,
    op.pullRequest?.headSha,
    verification,
  ]);
}

/**
 * @param {Operation} op
 * @param {VerificationResult | null | undefined} verification  undefined while it loads, null when it failed.
 */
export function renderOverview(op, verification) {
  const errorTitle = op.outcome ? OUTCOME_TITLES[op.outcome.code] : ERROR_TITLES[op.status];
  return [
    op.error && errorTitle ? card(errorTitle, 'op-error', h('pre', { class: 'pre bad' }, op.error)) : null,
    op.failureReport ? card('Failure report', 'op-failure-report', renderFailureReport(op.failureReport)) : null,
    card('Summary', 'op-summary', summary(op)),
    op.evidence ? card('Evidence', 'op-evidence', renderEvidence(op.evidence)) : null,
    card('Checks', 'op-checks', renderChecks(op.checks, op.status)),
    op.pullRequest
      ? card('Verification', 'op-verification', renderVerification(verification, op.pullRequest.headSha))
      : null,
    h(
      'div',
      { class: 'two' },
      card('Secret scan', 'op-findings', renderFindings(op.findings, op)),
      card('Risk', 'op-risk', renderRisk(op.risk)),
    ),
    op.review ? card('Review', 'op-review', renderReview(op.review)) : null,
    op.plan ? card('Plan', 'op-plan', renderPlan(op.plan)) : null,
    op.filesChanged.length
      ? card(
          'Files changed',
          'op-files',
          h(
            'ul',
            { class: 'plain files' },
            op.filesChanged.map((f) => h('li', {}, h('code', {}, f))),
          ),
        )
      : null,
  ];
}
