import { describe, expect, it } from 'vitest';
import { parseUnifiedDiff } from './dashboard-diff.ts';

// `git diff --cached -M` output: binary add, delete, pure rename, a name with a space, an edit.
const DIFF = [
  'diff --git a/bin.dat b/bin.dat',
  'new file mode 100644',
  'index 0000000..bdc955b',
  'Binary files /dev/null and b/bin.dat differ',
  'diff --git a/gone.txt b/gone.txt',
  'deleted file mode 100644',
  'index 3367afd..0000000',
  '--- a/gone.txt',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-old',
  'diff --git a/mv.txt b/moved.txt',
  'similarity index 100%',
  'rename from mv.txt',
  'rename to moved.txt',
  'diff --git a/sp ace.txt b/sp ace.txt',
  'new file mode 100644',
  'index 0000000..fa49b07',
  '--- /dev/null',
  '+++ b/sp ace.txt\t',
  '@@ -0,0 +1 @@',
  '+new file',
  'diff --git a/x.txt b/x.txt',
  'index de98044..f8f7a32 100644',
  '--- a/x.txt',
  '+++ b/x.txt',
  '@@ -1,3 +1,4 @@',
  ' a',
  '-b',
  '+B',
  ' c',
  '+d',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('parseUnifiedDiff', () => {
  const files = parseUnifiedDiff(DIFF);

  it('finds every file with its status, name and counts', () => {
    expect(files.map((f) => [f.path, f.oldPath, f.status, f.binary, f.additions, f.deletions])).toEqual([
      ['bin.dat', null, 'added', true, 0, 0],
      ['gone.txt', null, 'deleted', false, 0, 1],
      ['moved.txt', 'mv.txt', 'renamed', false, 0, 0],
      ['sp ace.txt', null, 'added', false, 1, 0],
      ['x.txt', null, 'modified', false, 2, 1],
    ]);
  });

  it('numbers lines on both sides and classifies them', () => {
    const x = files.at(-1)!;
    expect(x.lines.map((l) => [l.kind, l.old, l.new, l.text])).toEqual([
      ['hunk', null, null, '@@ -1,3 +1,4 @@'],
      ['context', 1, 1, 'a'],
      ['del', 2, null, 'b'],
      ['add', null, 2, 'B'],
      ['context', 3, 3, 'c'],
      ['add', null, 4, 'd'],
      ['note', null, null, 'No newline at end of file'],
    ]);
  });

  it('reads removed lines that look like headers as content once inside a hunk', () => {
    const [file] = parseUnifiedDiff(
      ['diff --git a/a.md b/a.md', '--- a/a.md', '+++ b/a.md', '@@ -1,2 +1,1 @@', '--- a/x', '+++ b/y'].join('\n'),
    );
    expect(file!.path).toBe('a.md');
    expect(file!.lines.map((l) => [l.kind, l.text])).toEqual([
      ['hunk', '@@ -1,2 +1,1 @@'],
      ['del', '-- a/x'],
      ['add', '++ b/y'],
    ]);
  });

  it('caps the lines kept per file but still counts them all', () => {
    const body = Array.from({ length: 50 }, (_, i) => `+line ${i}`);
    const [file] = parseUnifiedDiff(['diff --git a/big b/big', '@@ -0,0 +1,50 @@', ...body].join('\n'), 10);
    expect(file!.lines).toHaveLength(10);
    expect(file!.truncated).toBe(true);
    expect(file!.additions).toBe(50);
  });

  it('returns no files for an empty diff', () => {
    expect(parseUnifiedDiff('')).toEqual([]);
  });
});
