import type { ReviewFeedback } from '@pullwright/queue';
import { describe, expect, it } from 'vitest';
import { parseReplies, revisionTask } from './revision-replies.ts';

const feedback: ReviewFeedback[] = [
  { id: 11, kind: 'review_comment', user: 'maria', body: 'Drop punctuation', path: 'src/a.js', line: 3 },
  { id: 12, kind: 'issue_comment', user: 'li', body: 'Also update the README' },
];

describe('parseReplies', () => {
  it.each([
    [
      'the last valid block wins',
      'Draft {"replies":[{"comment":"C1","outcome":"question","note":"x"}]}\nFinal:\n{"replies":[{"comment":"C1","outcome":"fixed","note":"done"},{"comment":"c2","outcome":"declined","note":"out of scope"}]}',
      [
        ['fixed', 'done'],
        ['declined', 'out of scope'],
      ],
    ],
    [
      'an unanswered comment defaults to fixed with no note',
      '{"replies":[{"comment":"C2","outcome":"question","note":"Which README?"}]}',
      [
        ['fixed', ''],
        ['question', 'Which README?'],
      ],
    ],
    [
      'braces and quotes inside a note do not end the block',
      'Done. {"replies":[{"comment":"C1","outcome":"fixed","note":"wrapped in {} and \\"quotes\\""}]} Thanks!',
      [
        ['fixed', 'wrapped in {} and "quotes"'],
        ['fixed', ''],
      ],
    ],
    [
      'no block at all',
      'I changed things.',
      [
        ['fixed', ''],
        ['fixed', ''],
      ],
    ],
    [
      'broken JSON',
      '{"replies": [ {"comment": "C1", ',
      [
        ['fixed', ''],
        ['fixed', ''],
      ],
    ],
    [
      'an outcome outside the three is not trusted',
      '{"replies":[{"comment":"C1","outcome":"merged","note":"hah"}]}',
      [
        ['fixed', ''],
        ['fixed', ''],
      ],
    ],
  ])('%s', (_name, text, expected) => {
    expect(parseReplies(text, feedback).map((r) => [r.outcome, r.note])).toEqual(expected);
  });
});

describe('revisionTask', () => {
  it('labels every comment with where it points and asks for the reply block', () => {
    const task = revisionTask(
      {
        id: 'op1',
        type: 'debug',
        repo: 'acme/app',
        branch: 'agent/op1-x',
        baseBranch: 'main',
        description: 'slugify keeps spaces',
      } as Parameters<typeof revisionTask>[0],
      feedback,
    );
    expect(task).toContain('[C1] maria on src/a.js:3:\nDrop punctuation');
    expect(task).toContain('[C2] li:\nAlso update the README');
    expect(task).toContain('"replies"');
    expect(task).toContain('slugify keeps spaces');
  });
});
