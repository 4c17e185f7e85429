/**
 * Text-edit mode: models without tool calling answer with whole-file blocks.
 *
 *     ^^^src/auth.ts          replace (or create) the file with the lines up to ^^^end
 *     …file content…
 *     ^^^end
 *
 *     ^^^src/old.ts           delete the file
 *     ^^^delete
 *
 * Markers count only at the start of a line; everything outside blocks is prose and is
 * ignored, so blocks may sit inside markdown fences. Content is taken verbatim (fences
 * inside it included) and always ends with a newline unless the block is empty.
 */
export type FileBlock =
  | { kind: 'write'; path: string; content: string; line: number }
  | { kind: 'delete'; path: string; line: number };

export interface FileBlockProblem {
  /** 1-based line of the response (parse problems) or of the block's ^^^path line. */
  line: number;
  path: string | undefined;
  message: string;
}

interface ParsedFileBlocks {
  blocks: FileBlock[];
  /** Every problem at once, so one corrective turn can fix them all. */
  problems: FileBlockProblem[];
}

const END = /^\^\^\^end\s*$/;
const DELETE = /^\^\^\^delete\s*$/;
const HEADER = /^\^\^\^(.*)$/;

/** `^^^ \`src/a.ts\` ` → `src/a.ts`: models like to quote paths. */
function cleanPath(raw: string): string {
  const trimmed = raw.trim();
  const quoted = /^(["'`])(.*)\1$/.exec(trimmed);
  return (quoted ? (quoted[2] ?? '') : trimmed).trim();
}

interface Open {
  path: string;
  line: number;
  content: string[];
}

export function parseFileBlocks(text: string): ParsedFileBlocks {
  const blocks: FileBlock[] = [];
  const problems: FileBlockProblem[] = [];
  // CRLF responses parse like LF ones; applyFileBlocks restores CRLF where a file uses it.
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  let open: Open | undefined;
  let justDeleted = false;

  const openBlock = (raw: string, line: number) => {
    const path = cleanPath(raw);
    if (path === '') {
      problems.push({ line, path: undefined, message: `line ${line}: ^^^ without a file path` });
      open = undefined;
      return;
    }
    open = { path, line, content: [] };
  };

  lines.forEach((text, i) => {
    const line = i + 1;
    const wasJustDeleted = justDeleted;
    justDeleted = false;
    if (END.test(text)) {
      if (open) {
        blocks.push({
          kind: 'write',
          path: open.path,
          line: open.line,
          content: open.content.length === 0 ? '' : `${open.content.join('\n')}\n`,
        });
        open = undefined;
      } else if (!wasJustDeleted) {
        // "^^^delete" then "^^^end" is a common habit and harmless; any other stray end is not.
        problems.push({ line, path: undefined, message: `line ${line}: ^^^end closes no open block` });
      }
      return;
    }
    if (DELETE.test(text)) {
      if (open && open.content.length === 0) {
        blocks.push({ kind: 'delete', path: open.path, line: open.line });
        justDeleted = true;
      } else if (open) {
        problems.push({
          line,
          path: open.path,
          message: `line ${line}: ^^^delete must directly follow the ^^^${open.path} line (${open.line}); the block has content`,
        });
      } else {
        problems.push({ line, path: undefined, message: `line ${line}: ^^^delete follows no ^^^path line` });
      }
      open = undefined;
      return;
    }
    const header = HEADER.exec(text);
    if (header) {
      if (open) {
        // Taking this line as content would silently swallow the next block.
        problems.push({
          line: open.line,
          path: open.path,
          message: `line ${open.line}: block for ${open.path} has no ^^^end before the next ^^^ line (${line})`,
        });
      }
      openBlock(header[1] ?? '', line);
      return;
    }
    open?.content.push(text);
  });
  if (open) {
    const o: Open = open;
    problems.push({ line: o.line, path: o.path, message: `line ${o.line}: block for ${o.path} has no ^^^end` });
  }
  return { blocks, problems };
}
