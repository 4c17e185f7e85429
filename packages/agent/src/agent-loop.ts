import { inSpan } from '@pullwright/core';
import type { BudgetTracker } from './budget-tracker.ts';
import type {
  ContentBlock,
  ModelMessage,
  ModelProvider,
  ModelResponse,
  ModelUsage,
  ToolResultBlock,
  ToolUseBlock,
} from './model-provider.ts';
import { zeroUsage } from './model-provider.ts';
import { ModelProviderError } from './providers/model-provider-error.ts';
import type { AgentTool, ToolContext } from './tools/define-tool.ts';
import type { TranscriptWriter } from './transcript-writer.ts';

export type LoopStop = 'completed' | 'stopped' | 'budget' | 'stuck';

export interface AgentLoopResult {
  stop: LoopStop;
  /** Why the loop stopped early (cancel, budget…), in words for the operation's reason. */
  reason?: string;
  finalText: string;
  turns: number;
  usage: ModelUsage;
  /** The whole conversation, so a caller can continue it (a corrective retry). */
  messages: ModelMessage[];
}

export type AgentStep =
  | { kind: 'model'; role: string; turn: number; text: string; toolCalls: string[] }
  | { kind: 'tool'; role: string; name: string; input: unknown; isError: boolean; summary: string };

/** One model call as the run record keeps it: what was new in the request, and the answer. */
export interface ModelCallRecord {
  role: string;
  turn: number;
  model: string;
  stopReason: string;
  usage: ModelUsage;
  /** The system prompt, on the first call of a conversation only. */
  system?: string;
  /** The message this call answered (the task, or the tool results of the last turn). */
  input: ContentBlock[];
  output: ContentBlock[];
}

export interface AgentLoopOptions {
  provider: ModelProvider;
  system: string;
  /** The user's first message; or `messages` to continue an earlier conversation. */
  task: string;
  messages?: ModelMessage[];
  tools: readonly AgentTool[];
  context: ToolContext;
  budget: BudgetTracker;
  /** The same call (tool and input) this many times in a row means the model is going in circles. */
  maxRepeats?: number;
  maxTokensPerTurn?: number;
  transcript?: TranscriptWriter;
  /** Messages from people that arrived since the last turn; shown to the model before its next call. */
  readInbox?: () => Promise<string[]>;
  /** Checked before every model call: a reason ends the loop (cancel, budget). */
  shouldStop?: () => Promise<string | undefined>;
  /** Every model turn and tool call, for the operation's event stream. */
  onStep?: (step: AgentStep) => Promise<void>;
  /** Every model call, once answered: the numbered artifacts of the run record. */
  onModelCall?: (call: ModelCallRecord) => Promise<void>;
  /** Usage after every model call (with its cost), so the operation record stays current. */
  onUsage?: (delta: ModelUsage, costUsd: number, model: string) => Promise<void>;
  /** Which role this conversation is, for the transcript and events. */
  role?: string;
  /**
   * Continues a conversation checkpointed by an earlier attempt: `messages` holds it up to its
   * last completed turn, and these are the turns and usage it had spent by then.
   */
  resume?: { turns: number; usage: ModelUsage };
  /**
   * After each completed turn (the model's answer and every tool result appended): the state
   * to resume from. A throw ends the loop like any other failure of the job.
   */
  onTurn?: (state: { messages: ModelMessage[]; turns: number; usage: ModelUsage }) => Promise<void>;
}

function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/**
 * The tool-using model loop: ask the model, run the tools it calls, hand back the results,
 * until it answers without tool calls or a limit ends it.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { provider, tools, context, budget } = options;
  const role = options.role ?? 'coder';
  const maxRepeats = options.maxRepeats ?? 3;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const messages: ModelMessage[] = options.messages ?? [
    { role: 'user', content: [{ type: 'text', text: options.task }] },
  ];
  let usage = options.resume?.usage ?? zeroUsage();
  const firstTurn = (options.resume?.turns ?? 0) + 1;
  let finalText = '';
  let lastCall = '';
  let repeats = 0;
  if (options.resume) {
    await options.transcript?.append('resume', { role, turns: options.resume.turns });
  } else {
    await options.transcript?.append('task', {
      role,
      system: options.system,
      task: options.task,
      tools: tools.map((t) => t.name),
    });
  }
  const result = (stop: LoopStop, turns: number, reason?: string): AgentLoopResult => ({
    stop,
    ...(reason ? { reason } : {}),
    finalText,
    turns,
    usage,
    messages,
  });

  for (let turn = firstTurn; ; turn++) {
    const stopReason = await options.shouldStop?.();
    if (stopReason) return result('stopped', turn - 1, stopReason);
    const exhausted = budget.exhausted();
    if (exhausted) return result('budget', turn - 1, exhausted);
    const notes = (await options.readInbox?.()) ?? [];
    if (notes.length > 0) {
      const last = messages[messages.length - 1]!;
      const text = `Message from the requester while you work:\n${notes.join('\n\n')}`;
      // Appended to the pending user turn: providers require user/assistant turns to alternate.
      last.content.push({ type: 'text', text });
      await options.transcript?.append('inbox', { role, turn, messages: notes });
    }

    let response: ModelResponse;
    try {
      response = await inSpan('model.complete', { 'pullwright.role': role, 'pullwright.turn': turn }, async (span) => {
        const answer = await provider.complete({
          system: options.system,
          messages,
          tools: tools.map((t) => t.spec),
          maxTokens: options.maxTokensPerTurn ?? 16_384,
          ...(context.signal ? { signal: context.signal } : {}),
        });
        span.setAttributes({
          'gen_ai.response.model': answer.model,
          'gen_ai.usage.input_tokens': answer.usage.inputTokens,
          'gen_ai.usage.output_tokens': answer.usage.outputTokens,
        });
        return answer;
      });
    } catch (err) {
      // The model gateway holds the operation's budget too: its refusal ends the loop like ours.
      if (err instanceof ModelProviderError && err.reason === 'budget') return result('budget', turn - 1, err.message);
      throw err;
    }
    usage = addUsage(usage, response.usage);
    const cost = budget.record(response.model, response.usage);
    await options.onUsage?.(response.usage, cost, response.model);
    await options.onModelCall?.({
      role,
      turn,
      model: response.model,
      stopReason: response.stopReason,
      usage: response.usage,
      ...(turn === 1 ? { system: options.system } : {}),
      input: messages[messages.length - 1]?.content ?? [],
      output: response.content,
    });
    await options.transcript?.append('response', {
      role,
      turn,
      model: response.model,
      stopReason: response.stopReason,
      content: response.content,
      usage: response.usage,
    });
    messages.push({ role: 'assistant', content: response.content });

    const text = response.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    if (text) finalText = text;
    const calls = response.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    await options.onStep?.({ kind: 'model', role, turn, text, toolCalls: calls.map((c) => c.name) });
    if (calls.length === 0) return result('completed', turn);

    const results: ContentBlock[] = [];
    for (const call of calls) {
      const signature = `${call.name}:${JSON.stringify(call.input)}`;
      repeats = signature === lastCall ? repeats + 1 : 1;
      lastCall = signature;
      if (repeats >= maxRepeats) {
        return result('stuck', turn, `the model repeated the same ${call.name} call ${repeats} times in a row`);
      }
      const tool = byName.get(call.name);
      const outcome = tool
        ? await tool.execute(call.input, context)
        : { content: `Unknown tool "${call.name}". Available: ${[...byName.keys()].join(', ')}.`, isError: true };
      const block: ToolResultBlock = { type: 'tool_result', toolUseId: call.id, content: outcome.content };
      if (outcome.isError) block.isError = true;
      results.push(block);
      await options.transcript?.append('tool', {
        role,
        turn,
        name: call.name,
        input: call.input,
        isError: outcome.isError,
        output: outcome.content,
      });
      await options.onStep?.({
        kind: 'tool',
        role,
        name: call.name,
        input: call.input,
        isError: outcome.isError,
        summary: outcome.content.split('\n')[0]?.slice(0, 200) ?? '',
      });
    }
    messages.push({ role: 'user', content: results });
    await options.onTurn?.({ messages, turns: turn, usage });
  }
}
