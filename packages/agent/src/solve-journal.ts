import { CheckRun, Plan } from '@pullwright/core';
import { z } from 'zod';
import type { AgentLoopResult } from './agent-loop.ts';
import type { ModelMessage, ModelUsage } from './model-provider.ts';

const Usage = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
});

const Block = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  z.object({
    type: z.literal('tool_result'),
    toolUseId: z.string(),
    content: z.string(),
    isError: z.boolean().exactOptional(),
  }),
]);

const Message = z.object({ role: z.enum(['user', 'assistant']), content: z.array(Block) });

/** One conversation of a solve: its role, the phase it belongs to, and where it got to. */
const ConversationStep = z.object({
  kind: z.literal('conversation'),
  role: z.string(),
  phase: z.enum(['plan', 'code', 'repair', 'review']),
  turns: z.number().int().nonnegative(),
  usage: Usage,
  messages: z.array(Message),
  /** Set once the conversation completed: a resumed solve takes its answer without a model call. */
  finalText: z.string().optional(),
});

/** One run of the repository's checks between conversations: replayed so the solve takes the same path. */
const ChecksStep = z.object({
  kind: z.literal('checks'),
  runs: z.array(CheckRun),
});

/**
 * What a solve has done so far, in order, as the checkpoint stores it (JSON). `plan` is the plan
 * after `onPlan` (a person may have changed it). Version 1.
 */
export const SolveCheckpoint = z.object({
  version: z.literal(1),
  steps: z.array(z.discriminatedUnion('kind', [ConversationStep, ChecksStep])),
  plan: Plan.optional(),
});
export type SolveCheckpoint = z.infer<typeof SolveCheckpoint>;
export type ConversationPhase = z.infer<typeof ConversationStep>['phase'];

/**
 * Where a solve keeps its progress so a retried job continues from the last completed turn
 * instead of calling the model again for everything (a Redis blip used to re-run the whole
 * conversation). `load` returns what `save` stored last (validated here; anything else means
 * start afresh); `save` is called after every completed turn and every checks run.
 * The queue package's `ConversationCheckpoints.for(opId, scope)` is the Redis implementation.
 */
export interface ConversationCheckpoint {
  load(): Promise<unknown>;
  save(state: SolveCheckpoint): Promise<void>;
}

type Conversation = z.infer<typeof ConversationStep>;

/**
 * The solve's steps in order: replays the recorded ones (same answers, same check results,
 * so the solve takes the same path) and records the live ones. A recorded step that does
 * not match what the solve asks for next ends the replay there and is dropped with
 * everything after it.
 */
export class SolveJournal {
  #cursor = 0;

  private constructor(
    private readonly checkpoint: ConversationCheckpoint | undefined,
    private readonly state: SolveCheckpoint,
  ) {}

  static async open(checkpoint: ConversationCheckpoint | undefined): Promise<SolveJournal> {
    const loaded = SolveCheckpoint.safeParse(checkpoint ? await checkpoint.load() : undefined);
    return new SolveJournal(checkpoint, loaded.success ? loaded.data : { version: 1, steps: [] });
  }

  /** True while recorded steps remain: phase events and plan hooks were already seen once. */
  get replaying(): boolean {
    return this.#cursor < this.state.steps.length;
  }

  /** Model calls the recorded conversations made: a resumed solve does not make them again. */
  get recordedModelCalls(): number {
    return this.state.steps.reduce((n, step) => n + (step.kind === 'conversation' ? step.turns : 0), 0);
  }

  get plan(): Plan | undefined {
    return this.state.plan;
  }

  async recordPlan(plan: Plan): Promise<void> {
    this.state.plan = plan;
    await this.#save();
  }

  /**
   * Runs one conversation: a completed recording is returned as is, a partial one is handed
   * to `run` to continue, otherwise `run` starts it. `run` reports each completed turn.
   */
  async conversation(
    role: string,
    phase: ConversationPhase,
    run: (
      resume: Conversation | undefined,
      onTurn: (s: { messages: ModelMessage[]; turns: number; usage: ModelUsage }) => Promise<void>,
    ) => Promise<AgentLoopResult>,
  ): Promise<AgentLoopResult> {
    const index = this.#cursor;
    const recorded = this.#take((step): step is Conversation => step.kind === 'conversation' && step.role === role);
    if (recorded?.finalText !== undefined) {
      return {
        stop: 'completed',
        finalText: recorded.finalText,
        turns: recorded.turns,
        usage: recorded.usage,
        messages: structuredClone(recorded.messages),
      };
    }
    const write = async (step: Conversation) => {
      this.state.steps[index] = step;
      await this.#save();
    };
    const result = await run(recorded && structuredClone(recorded), (s) =>
      write({
        kind: 'conversation',
        role,
        phase,
        turns: s.turns,
        usage: s.usage,
        messages: structuredClone(s.messages),
      }),
    );
    if (result.stop === 'completed') {
      await write({
        kind: 'conversation',
        role,
        phase,
        turns: result.turns,
        usage: result.usage,
        messages: structuredClone(result.messages),
        finalText: result.finalText,
      });
    }
    return result;
  }

  /** Runs the checks, or returns the recorded results of this point of the solve. */
  async checks(run: () => Promise<CheckRun[]>): Promise<CheckRun[]> {
    const index = this.#cursor;
    const recorded = this.#take((step): step is z.infer<typeof ChecksStep> => step.kind === 'checks');
    if (recorded) return recorded.runs;
    const runs = await run();
    this.state.steps[index] = { kind: 'checks', runs };
    await this.#save();
    return runs;
  }

  #take<T extends SolveCheckpoint['steps'][number]>(
    matches: (step: SolveCheckpoint['steps'][number]) => step is T,
  ): T | undefined {
    const step = this.state.steps[this.#cursor];
    if (step === undefined) {
      this.#cursor++;
      return undefined;
    }
    if (!matches(step)) {
      // The solve went another way than last time: nothing recorded from here on applies.
      this.state.steps.length = this.#cursor;
      this.#cursor++;
      return undefined;
    }
    this.#cursor++;
    return step;
  }

  async #save(): Promise<void> {
    await this.checkpoint?.save(this.state);
  }
}
