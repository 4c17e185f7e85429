import { describe, expect, it } from 'vitest';
import { type DiffFile, parseUnifiedDiff, UnifiedDiffError } from './parse-unified-diff.ts';

type Summary = Pick<DiffFile, 'path' | 'oldPath' | 'status' | 'binary' | 'oldMode' | 'newMode'> & {
  added: string[];
  removed: string[];
};

function summary(f: DiffFile): Summary {
  return {
    path: f.path,
    oldPath: f.oldPath,
    status: f.status,
    binary: f.binary,
    oldMode: f.oldMode,
    newMode: f.newMode,
    added: f.lines.filter((l) => l.kind === 'add').map((l) => l.text),
    removed: f.lines.filter((l) => l.kind === 'del').map((l) => l.text),
  };
}

const file = (over: Partial<Summary>): Summary => ({
  path: '',
  oldPath: null,
  status: 'modified',
  binary: false,
  oldMode: null,
  newMode: null,
  added: [],
  removed: [],
  ...over,
});

// Each entry is `git diff --cached -M` output (git 2.x) for one kind of change.
const CASES: [string, string[], Summary][] = [
  [
    'a C-quoted non-ASCII name (octal UTF-8 bytes)',
    [
      'diff --git "a/sp\\303\\251cial" "b/sp\\303\\251cial"',
      'index 587be6b..b77b4eb 100644',
      '--- "a/sp\\303\\251cial"',
      '+++ "b/sp\\303\\251cial"',
      '@@ -1 +1,2 @@',
      ' x',
      '+y',
    ],
    file({ path: 'spécial', added: ['y'] }),
  ],
  [
    'a new file with a quoted name, space and trailing tab',
    [
      'diff --git "a/new n\\303\\244me.txt" "b/new n\\303\\244me.txt"',
      'new file mode 100644',
      'index 0000000..6178079',
      '--- /dev/null',
      '+++ "b/new n\\303\\244me.txt"\t',
      '@@ -0,0 +1 @@',
      '+b',
    ],
    file({ path: 'new näme.txt', status: 'added', newMode: '100644', added: ['b'] }),
  ],
  [
    'a quoted name holding an escaped backslash',
    ['diff --git "a/tab\\\\there" "b/tab\\\\there"', 'new file mode 100644', 'index 0000000..587be6b'],
    file({ path: 'tab\\there', status: 'added', newMode: '100644' }),
  ],
  [
    'a rename with an edit',
    [
      'diff --git a/mv.txt b/moved.txt',
      'similarity index 75%',
      'rename from mv.txt',
      'rename to moved.txt',
      'index b2f931a..b80f223 100644',
      '--- a/mv.txt',
      '+++ b/moved.txt',
      '@@ -1,3 +1,3 @@',
      ' one',
      '-three',
      '+THREE',
      ' four',
    ],
    file({ path: 'moved.txt', oldPath: 'mv.txt', status: 'renamed', added: ['THREE'], removed: ['three'] }),
  ],
  [
    'a pure rename between quoted names',
    [
      'diff --git "a/sp\\303\\251cial" "b/\\303\\251t\\303\\251.txt"',
      'similarity index 100%',
      'rename from "sp\\303\\251cial"',
      'rename to "\\303\\251t\\303\\251.txt"',
    ],
    file({ path: 'été.txt', oldPath: 'spécial', status: 'renamed' }),
  ],
  [
    'a binary file (summary line)',
    [
      'diff --git a/bin.dat b/bin.dat',
      'new file mode 100644',
      'index 0000000..8352675',
      'Binary files /dev/null and b/bin.dat differ',
    ],
    file({ path: 'bin.dat', status: 'added', binary: true, newMode: '100644' }),
  ],
  [
    'a binary file (GIT binary patch data is never read as headers)',
    [
      'diff --git a/bin.dat b/bin.dat',
      'index 8352675..0000000 100644',
      'GIT binary patch',
      'literal 3',
      'KcmZQzWC8#H2LJ>B',
      '',
      'literal 0',
      'HcmV?d00001',
      '',
    ],
    file({ path: 'bin.dat', binary: true }),
  ],
  [
    'a mode change only',
    ['diff --git a/run.sh b/run.sh', 'old mode 100644', 'new mode 100755'],
    file({ path: 'run.sh', oldMode: '100644', newMode: '100755' }),
  ],
  [
    'a deleted file whose raw name holds a space',
    [
      'diff --git a/sp ace.txt b/sp ace.txt',
      'deleted file mode 100644',
      'index 7898192..0000000',
      '--- a/sp ace.txt\t',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-a',
    ],
    file({ path: 'sp ace.txt', status: 'deleted', oldMode: '100644', removed: ['a'] }),
  ],
  [
    'lines inside a hunk that look like headers',
    [
      'diff --git a/a.md b/a.md',
      '--- a/a.md',
      '+++ b/a.md',
      '@@ -1,2 +1,3 @@',
      '--- a/x',
      '-diff --git a/y b/y',
      '++++ b/z',
      '+@@ -1 +1 @@',
      '+rename to evil',
    ],
    file({
      path: 'a.md',
      added: ['+++ b/z', '@@ -1 +1 @@', 'rename to evil'],
      removed: ['-- a/x', 'diff --git a/y b/y'],
    }),
  ],
  [
    'plain `diff -u` output with timestamps',
    ['--- old/k.txt\t2026-01-01 00:00:00', '+++ new/k.txt\t2026-01-01 00:00:01', '@@ -0,0 +1 @@', '+k'],
    file({ path: 'new/k.txt', status: 'modified', added: ['k'] }),
  ],
];

describe('parseUnifiedDiff', () => {
  it.each(CASES)('reads %s', (_name, lines, expected) => {
    expect(parseUnifiedDiff(lines.join('\n')).map(summary)).toEqual([expected]);
  });

  it('reads every entry when they stand in one diff', () => {
    const all = parseUnifiedDiff(CASES.map(([, lines]) => lines.join('\n')).join('\n'));
    expect(all.map(summary)).toEqual(CASES.map(([, , expected]) => expected));
  });

  it('numbers lines on both sides and classifies them', () => {
    const [f] = parseUnifiedDiff(
      [
        '--- a/x.txt',
        '+++ b/x.txt',
        '@@ -1,3 +1,4 @@',
        ' a',
        '-b',
        '+B',
        ' c',
        '+d',
        '\\ No newline at end of file',
      ].join('\n'),
    );
    expect(f!.lines.map((l) => [l.kind, l.old, l.new, l.text])).toEqual([
      ['hunk', null, null, '@@ -1,3 +1,4 @@'],
      ['context', 1, 1, 'a'],
      ['del', 2, null, 'b'],
      ['add', null, 2, 'B'],
      ['context', 3, 3, 'c'],
      ['add', null, 4, 'd'],
      ['note', null, null, 'No newline at end of file'],
    ]);
    expect([f!.additions, f!.deletions]).toEqual([2, 1]);
  });

  it.each([
    ['a combined merge diff', '--- a/x\n+++ b/x\n@@@ -1,1 -1,1 +1,2 @@@\n++secret\n'],
    ['a hunk cut short', '--- a/x\n+++ b/x\n@@ -1,2 +1,5 @@\n+one\n'],
    ['a hunk with more added lines than it declares', '--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+one\n+two\n'],
    ['a malformed hunk header', '--- a/x\n+++ b/x\n@@ -1 +x @@\n+one\n'],
  ])('refuses %s with UnifiedDiffError', (_name, diff) => {
    expect(() => parseUnifiedDiff(diff)).toThrow(UnifiedDiffError);
  });

  it('returns no files for an empty diff', () => {
    expect(parseUnifiedDiff('')).toEqual([]);
  });
});
