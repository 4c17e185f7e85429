import type { Plan, PlanStep } from '@pullwright/core';
import { instructionsSection } from '../instructions/repository-instructions.ts';
import { fixPhase } from './fix-phase.ts';
import type { PlanStepEvent } from './solve-input.ts';
import {
  enterPhase,
  failureText,
  interrupted,
  notApplied,
  planFiles,
  planText,
  resultOf,
  runChecks,
  type Solve,
  type SolveResult,
} from './solve-state.ts';

/**
 * code: the coder on the whole request in one conversation; or, with per-step verification,
 * on one plan step at a time, each step's declared checks green (through the fixer, at most
 * `maxRepairs` rounds a step) before the next starts. Returns a result only when the solve
 * ends here.
 */
export async function codePhase(solve: Solve): Promise<SolveResult | undefined> {
  const { input, state } = solve;
  await enterPhase(solve, 'code');
  const files = planFiles(solve);
  const task = `${input.task}${planText(state)}${instructionsSection(input.instructions, files)}\n\nRepository map:\n${input.repoMap}`;
  if (input.perStepVerification && state.plan) {
    for (const step of state.plan.steps) {
      const stop = await verifiedStep(solve, task, state.plan, step);
      if (stop) return stop;
    }
    return undefined;
  }
  const coded = await solve.edits.code(task, files);
  state.applyProblem = coded.problem;
  state.summary = coded.summary;
  return interrupted(solve, coded.loop);
}

/**
 * One plan step under per-step verification: the coder on this step only, then the step's
 * declared checks; red goes to the fixer (at most `maxRepairs` rounds for the step) and
 * blocks the next step until green.
 */
async function verifiedStep(
  solve: Solve,
  codeTask: string,
  plan: Plan,
  step: PlanStep,
): Promise<SolveResult | undefined> {
  const { input, state, maxRepairs } = solve;
  const id = step.id ?? '?';
  const base = { planId: plan.plan_id ?? '', taskId: id, title: step.title };
  const report = async (event: Pick<PlanStepEvent, 'state' | 'checks'>) => {
    if (!solve.journal.replaying) await input.onPlanStep?.({ ...base, ...event });
  };
  await report({ state: 'started' });
  const task = `${codeTask}\n\nWork on step ${id} only ("${step.title}"; done when: ${step.acceptance}). The steps before it are done; leave the later ones for later.`;
  const coded = await solve.edits.code(task, step.files);
  state.applyProblem = coded.problem;
  const stop = interrupted(solve, coded.loop);
  if (stop) return stop;
  state.summary = `${state.summary}\n\n${id}: ${coded.summary}`.trim();
  if (step.tests.length === 0) {
    await report({ state: 'done' });
    return undefined;
  }
  for (let round = 0; ; round++) {
    let repairTask: string;
    if (state.applyProblem) {
      if (round >= maxRepairs)
        return resultOf(solve, 'checks_failed', `step ${id}: file blocks still not applicable: ${state.applyProblem}`);
      repairTask = notApplied(state.applyProblem);
    } else {
      await runChecks(solve, step.tests);
      const checks = state.checks.map((c) => ({ name: c.name, passed: !state.newFailures.includes(c) }));
      if (state.newFailures.length === 0) {
        await report({ state: 'verified', checks });
        return undefined;
      }
      if (round >= maxRepairs) {
        await report({ state: 'failed', checks });
        return resultOf(
          solve,
          'checks_failed',
          `step ${id} ("${step.title}") still failing after ${round} repair rounds: ${state.newFailures.map((c) => c.name).join(', ')}; the later steps were not started`,
        );
      }
      repairTask = failureText(state);
    }
    const fixStop = await fixPhase(
      solve,
      repairTask,
      `\n\nThis is step ${id} of the plan ("${step.title}"): make its checks (${step.tests.join(', ')}) pass before anything else.`,
      id,
    );
    if (fixStop) return fixStop;
  }
}
