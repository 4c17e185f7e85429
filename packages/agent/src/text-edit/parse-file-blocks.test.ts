import { describe, expect, it } from 'vitest';
import { type FileBlock, parseFileBlocks } from './parse-file-blocks.ts';

const FENCE = '```';

interface Case {
  name: string;
  input: string;
  blocks: Array<Partial<FileBlock>>;
  problems?: RegExp[];
}

const CASES: Case[] = [
  {
    name: 'one block between prose',
    input: 'Here is the fix.\n^^^src/a.ts\nexport const a = 1;\n^^^end\nThat should do it.',
    blocks: [{ kind: 'write', path: 'src/a.ts', content: 'export const a = 1;\n', line: 2 }],
  },
  {
    name: 'an empty file',
    input: '^^^src/empty.ts\n^^^end',
    blocks: [{ kind: 'write', path: 'src/empty.ts', content: '' }],
  },
  {
    name: 'a file of one blank line',
    input: '^^^blank.txt\n\n^^^end',
    blocks: [{ kind: 'write', path: 'blank.txt', content: '\n' }],
  },
  {
    name: 'a delete, and the habit of adding ^^^end after it',
    input: '^^^src/old.ts\n^^^delete\n^^^src/older.ts\n^^^delete\n^^^end\n',
    blocks: [
      { kind: 'delete', path: 'src/old.ts', line: 1 },
      { kind: 'delete', path: 'src/older.ts', line: 3 },
    ],
  },
  {
    name: 'blocks inside a markdown fence, content with its own fences kept verbatim',
    input: [
      FENCE,
      '^^^README.md',
      '# Title',
      `${FENCE}ts`,
      'const x = 1;',
      FENCE,
      '  indented  ',
      '^^^end',
      FENCE,
    ].join('\n'),
    blocks: [
      { kind: 'write', path: 'README.md', content: `# Title\n${FENCE}ts\nconst x = 1;\n${FENCE}\n  indented  \n` },
    ],
  },
  {
    name: 'CRLF responses parse like LF ones',
    input: 'ok\r\n^^^src/a.ts\r\nline 1\r\nline 2\r\n^^^end\r\n^^^b.ts\r\n^^^delete\r\n',
    blocks: [
      { kind: 'write', path: 'src/a.ts', content: 'line 1\nline 2\n' },
      { kind: 'delete', path: 'b.ts' },
    ],
  },
  {
    name: 'quoted paths and trailing spaces on markers',
    input: '^^^ `src/q.ts` \nq\n^^^end   \n^^^"src/r.ts"\n^^^delete  ',
    blocks: [
      { kind: 'write', path: 'src/q.ts', content: 'q\n' },
      { kind: 'delete', path: 'src/r.ts' },
    ],
  },
  {
    name: 'a path that starts with "end" is a path, not a marker',
    input: '^^^endpoint.ts\nx\n^^^end',
    blocks: [{ kind: 'write', path: 'endpoint.ts', content: 'x\n' }],
  },
  {
    name: 'traversal is left to the guard: the parser reports what was asked',
    input: '^^^../../etc/passwd\nroot::0:0\n^^^end',
    blocks: [{ kind: 'write', path: '../../etc/passwd', content: 'root::0:0\n' }],
  },
  {
    name: 'no blocks at all',
    input: 'I could not find the bug.',
    blocks: [],
  },
  {
    name: 'missing ^^^end at the end of the response',
    input: '^^^src/a.ts\nexport const a = 1;\n',
    blocks: [],
    problems: [/line 1: block for src\/a.ts has no \^\^\^end$/],
  },
  {
    name: 'missing ^^^end before the next block: reported, the next block still parsed',
    input: '^^^src/a.ts\na\n^^^src/b.ts\nb\n^^^end',
    blocks: [{ kind: 'write', path: 'src/b.ts', content: 'b\n', line: 3 }],
    problems: [/block for src\/a.ts has no \^\^\^end before the next \^\^\^ line \(3\)/],
  },
  {
    name: 'a stray ^^^end',
    input: 'text\n^^^end',
    blocks: [],
    problems: [/line 2: \^\^\^end closes no open block/],
  },
  {
    name: '^^^delete after content',
    input: '^^^src/a.ts\nsome content\n^^^delete',
    blocks: [],
    problems: [/line 3: \^\^\^delete must directly follow the \^\^\^src\/a.ts line \(1\)/],
  },
  {
    name: '^^^delete with no path line',
    input: '^^^delete',
    blocks: [],
    problems: [/follows no \^\^\^path line/],
  },
  {
    name: 'a header without a path',
    input: '^^^   \nx\n^^^end',
    blocks: [],
    problems: [/line 1: \^\^\^ without a file path/, /line 3: \^\^\^end closes no open block/],
  },
];

describe('parseFileBlocks', () => {
  it.each(CASES)('$name', ({ input, blocks, problems = [] }) => {
    const parsed = parseFileBlocks(input);
    expect(parsed.blocks).toMatchObject(blocks);
    expect(parsed.blocks).toHaveLength(blocks.length);
    expect(parsed.problems.map((p) => p.message)).toHaveLength(problems.length);
    problems.forEach((re, i) => {
      expect(parsed.problems[i]?.message).toMatch(re);
    });
  });
});
