import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ScriptedReply, textReply, toolCall } from '@pullwright/agent/testing';
import type { LocalForge } from '@pullwright/forge';

/**
 * A repository whose `test` passes only when `src/app.js` exports an answer of 44 (TAP output
 * with counts, the actual value in the failure; above 44 another test fails) and whose `lint` always passes; the answer
 * starts at 41. Scripted models walk it to green one edit at a time.
 */
export async function createAnswerRepo(
  forge: LocalForge,
  repo: string,
  extra: Record<string, string> = {},
): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-answer-'));
  const files: Record<string, string> = {
    'package.json': JSON.stringify({
      name: 'answer',
      type: 'module',
      scripts: { lint: 'node lint.js', test: 'node test.js' },
    }),
    'src/app.js': 'export const answer = 41;\n',
    'lint.js': "console.log('lint: 0 problems');\n",
    'test.js': [
      "import { answer } from './src/app.js';",
      'if (answer === 44) { console.log("ok 1 - answer is 44\\n# pass 1\\n# fail 0"); process.exit(0); }',
      // Over 44 fails another test than the base does: a new failure, not a pre-existing one.
      'if (answer > 44) { console.log("ok 1 - answer is a number\\nnot ok 3 - answer is at most 44\\n  actual: " + answer + "\\n# pass 1\\n# fail 1"); process.exit(1); }',
      'console.log("ok 1 - answer is a number\\nnot ok 2 - answer is 44\\n  expected: 44\\n  actual: " + answer + "\\n# pass 1\\n# fail 1");',
      'process.exit(1);',
    ].join('\n'),
    ...extra,
  };
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  await forge.createRepository(repo, {}, { fromDir: dir });
  rmSync(dir, { recursive: true, force: true });
  return repo;
}

export const jsonReply = (v: unknown): ScriptedReply => textReply(JSON.stringify(v));

/** The coder's or fixer's edit of the answer. */
export const editAnswer = (from: number, to: number) =>
  toolCall('edit_file', { path: 'src/app.js', oldText: `answer = ${from}`, newText: `answer = ${to}` });

const ANSWER_PLAN = {
  summary: 'Set the answer to 44',
  steps: [{ title: 'Fix the answer', files: ['src/app.js'], acceptance: 'the answer test passes', tests: ['test'] }],
};

export const ACCEPT_REPLY = jsonReply({ decision: 'accept', reasons: ['the test passes'], must_fix: [] });

/** The fixer's strict JSON after setting the answer to `to` in repair round `round`. */
export const fixedReply = (round: number, to: number, buildStatus: 'pass' | 'fail') =>
  jsonReply({
    status: 'fixed',
    fixes_applied: [
      { file: 'src/app.js', line: 1, error_type: 'failing_assertion', description: `answer set to ${to}` },
    ],
    build_status: buildStatus,
    remaining_errors: [],
    attempts: round,
  });

/** A run with two repair rounds: 41 → 42 by the coder, → 43 and → 44 by the fixer, then accepted. */
export const TWO_REPAIRS: ScriptedReply[] = [
  jsonReply(ANSWER_PLAN),
  editAnswer(41, 42),
  textReply('Edited the answer.'),
  editAnswer(42, 43),
  fixedReply(1, 43, 'fail'),
  editAnswer(43, 44),
  fixedReply(2, 44, 'pass'),
  ACCEPT_REPLY,
];

/** The numbered artifacts `TWO_REPAIRS` leaves, in order: each model call and each check run. */
export const TWO_REPAIRS_RECORD = [
  '001-plan.json',
  '002-code.json',
  '003-code.json',
  '004-lint.txt',
  '005-test.txt',
  '006-fix.json',
  '007-fix.json',
  '008-lint.txt',
  '009-test.txt',
  '010-fix.json',
  '011-fix.json',
  '012-lint.txt',
  '013-test.txt',
  '014-review.json',
];

/** The fixer's report when it gives up in round `round`. */
const gaveUp = (round: number) =>
  jsonReply({
    status: 'failed',
    fixes_applied: [],
    build_status: 'fail',
    remaining_errors: ['answer is 42, the test wants 44'],
    attempts: round,
  });

/** A run that ends stuck: the coder sets 42, the fixer gives up twice with the same failure. */
export const GIVES_UP: ScriptedReply[] = [
  jsonReply(ANSWER_PLAN),
  editAnswer(41, 42),
  textReply('Edited.'),
  gaveUp(1),
  gaveUp(2),
];
