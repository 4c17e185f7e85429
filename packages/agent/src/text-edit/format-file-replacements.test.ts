import { describe, expect, it } from 'vitest';
import { formatFileReplacements } from './format-file-replacements.ts';
import { parseFileBlocks } from './parse-file-blocks.ts';

describe('formatFileReplacements', () => {
  it('shows only the latest version of each file, in first-touched order', () => {
    const attempts = [
      '^^^src/a.ts\nv1\n^^^end\n^^^src/b.ts\nb1\n^^^end',
      '^^^src/c.ts\n^^^delete\n^^^./src/a.ts\nv2\n^^^end',
      '^^^src/b.ts\n^^^delete\n^^^src/e.ts\n^^^end',
    ];
    const history = attempts.flatMap((a) => parseFileBlocks(a).blocks);
    expect(formatFileReplacements(history)).toBe(
      [
        '--- FILE REPLACEMENT src/a.ts ---',
        'v2',
        '--- FILE REMOVED src/b.ts ---',
        '--- FILE REMOVED src/c.ts ---',
        '--- FILE REPLACEMENT src/e.ts ---',
        '',
      ].join('\n'),
    );
  });

  it('is empty when nothing was replaced', () => {
    expect(formatFileReplacements([])).toBe('');
  });
});
