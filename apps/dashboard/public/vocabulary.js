// Generated from @pullwright/core (STATUS_LABELS) by test/dashboard-vocabulary.test.ts;
// `npx vitest run test/dashboard-vocabulary.test.ts -u` rewrites it. Do not edit by hand.

/** An operation's status as people read it. */
export const STATUS_LABELS = {
  queued: 'Queued',
  running: 'Running',
  awaiting_approval: 'Awaiting approval',
  approved: 'Approved',
  merging: 'Merging',
  merged: 'Merged',
  rejected: 'Rejected',
  failed: 'Failed',
  cancelled: 'Cancelled',
  evaluated: 'Evaluated',
};
