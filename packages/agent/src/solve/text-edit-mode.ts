import path from 'node:path';
import { FixReport, isPullwrightError } from '@pullwright/core';
import type { AgentLoopResult } from '../agent-loop.ts';
import { extractModelJson } from '../extract-model-json.ts';
import { currentFiles } from '../prompt-files.ts';
import { textEditPrompt } from '../role-prompts.ts';
import { applyFileBlocks } from '../text-edit/apply-file-blocks.ts';
import { parseFileBlocks } from '../text-edit/parse-file-blocks.ts';
import type { ToolContext } from '../tools/define-tool.ts';
import type { Converse } from './converse.ts';
import type { EditMode } from './edit-mode.ts';
import type { SolveInput } from './solve-input.ts';

/**
 * Coder and fixer answer with whole-file blocks, applied all or nothing; no role gets a tool
 * definition. A file shown to the model only in part cannot be replaced whole.
 */
export function textEditMode(input: SolveInput, checkNames: string[], converse: Converse): EditMode {
  const shownInPart = new Set<string>();
  /** One conversation whose answer's file blocks are applied; returns why they were not, if not. */
  const attempt = async (role: 'coder' | 'fixer', task: string, round: number) => {
    const loop = await converse(role, textEditPrompt(input.type, role, checkNames, round), task, []);
    if (loop.stop !== 'completed') return { loop };
    const problem = await applyBlocks(loop.finalText, input.context, shownInPart);
    await input.transcript?.append('file_blocks', { role, applied: !problem, ...(problem ? { problem } : {}) });
    return { loop, ...(problem ? { problem } : {}) };
  };
  return {
    canRead: false,
    lookTools: [],
    howToSeeOmitted: 'it cannot be replaced whole',
    async code(task, files) {
      const shown = await currentFiles([...files], input.readFile);
      for (const f of shown.partial) shownInPart.add(f);
      const answer = await attempt('coder', `${task}${shown.text}`, 1);
      return { ...answer, summary: proseAfterBlocks(answer.loop) };
    },
    async fix(task, round, partial) {
      for (const f of partial) shownInPart.add(f);
      const answer = await attempt('fixer', task, round);
      if (answer.loop.stop !== 'completed') return answer;
      return { ...answer, report: extractModelJson(FixReport, proseAfterBlocks(answer.loop)) };
    },
  };
}

/** What follows the answer's last file block (the summary, the fixer's JSON report): file contents may hold braces of their own. */
function proseAfterBlocks(loop: AgentLoopResult): string {
  const lines = loop.finalText.split('\n');
  const last = lines.findLastIndex((l) => /^\^\^\^(end|delete)\s*$/.test(l.replace(/\r$/, '')));
  return lines
    .slice(last + 1)
    .join('\n')
    .trim();
}

/**
 * Parses and applies a text-mode answer, all or nothing; returns why it was not applied, if
 * it was not. A whole-file block for a file the model saw only in part is refused: the part
 * it did not see would be dropped.
 */
async function applyBlocks(
  answer: string,
  context: ToolContext,
  shownInPart: ReadonlySet<string>,
): Promise<string | undefined> {
  const { blocks, problems } = parseFileBlocks(answer);
  if (problems.length > 0) return problems.map((p) => `line ${p.line}: ${p.message}`).join('\n');
  if (blocks.length === 0) return 'the answer contains no file blocks';
  const cut = blocks.filter((b) => b.kind === 'write' && shownInPart.has(normalizedPath(b.path)));
  if (cut.length > 0)
    return cut
      .map(
        (b) =>
          `line ${b.line}: ${b.path} was shown to you only in part (it is too large for the prompt); a whole-file block would drop the rest of it. Leave it unchanged or change a smaller file.`,
      )
      .join('\n');
  try {
    // The write hooks (secret scan, lint baseline) run before anything is written, like the tools'.
    for (const b of blocks) await context.onWrite?.(b.path, b.kind === 'write' ? b.content : null);
    await applyFileBlocks(context.root, blocks, context.guard);
    return undefined;
  } catch (err) {
    if (isPullwrightError(err)) return err.message;
    throw err;
  }
}

function normalizedPath(p: string): string {
  return path.posix.normalize(p.trim().replaceAll('\\', '/')).replace(/^\.\//, '');
}
