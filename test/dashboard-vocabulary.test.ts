import path from 'node:path';
import { STATUS_LABELS } from '@pullwright/core';
import { expect, it } from 'vitest';

/**
 * The dashboard is browser code without a build step, so it cannot import core: the labels it
 * shows are generated from core into `public/vocabulary.js`, and this test fails when the two
 * differ (`npx vitest run test/dashboard-vocabulary.test.ts -u` rewrites the file).
 */
const VOCABULARY = path.resolve(import.meta.dirname, '../apps/dashboard/public/vocabulary.js');

it("the dashboard's status labels are core's", async () => {
  const entries = Object.entries(STATUS_LABELS).map(
    ([status, label]) => `  ${status}: ${JSON.stringify(label).replace(/^"|"$/g, "'")},`,
  );
  const body = [
    '// Generated from @pullwright/core (STATUS_LABELS) by test/dashboard-vocabulary.test.ts;',
    '// `npx vitest run test/dashboard-vocabulary.test.ts -u` rewrites it. Do not edit by hand.',
    '',
    "/** An operation's status as people read it. */",
    'export const STATUS_LABELS = {',
    ...entries,
    '};',
    '',
  ].join('\n');
  await expect(body).toMatchFileSnapshot(VOCABULARY);
});
