import { FixReport } from '@pullwright/core';
import { extractModelJson } from '../extract-model-json.ts';
import { coderPrompt, fixerPrompt } from '../role-prompts.ts';
import { ALL_TOOLS, READ_ONLY_TOOLS } from '../tools/index.ts';
import { type Converse, notValid } from './converse.ts';
import type { EditMode } from './edit-mode.ts';
import type { SolveInput } from './solve-input.ts';

/** Coder and fixer edit with tool calls; a fixer report that does not validate gets one corrective turn. */
export function toolEditMode(input: SolveInput, checkNames: string[], converse: Converse): EditMode {
  return {
    canRead: true,
    lookTools: READ_ONLY_TOOLS,
    howToSeeOmitted: 'read it with read_file and a line range',
    async code(task) {
      const loop = await converse('coder', coderPrompt(input.type, checkNames), task, ALL_TOOLS);
      return { loop, summary: loop.finalText };
    },
    async fix(task, round) {
      const system = fixerPrompt(checkNames, round);
      const first = await converse('fixer', system, task, ALL_TOOLS);
      if (first.stop !== 'completed') return { loop: first };
      const report = extractModelJson(FixReport, first.finalText);
      if (report.ok) return { loop: first, report };
      // One corrective turn in the same conversation, as for the planner and the reviewer.
      const second = await converse('fixer', system, task, ALL_TOOLS, [...first.messages, notValid(report.problem)]);
      if (second.stop !== 'completed') return { loop: second };
      return { loop: second, report: extractModelJson(FixReport, second.finalText) };
    },
  };
}
