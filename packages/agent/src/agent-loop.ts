import type {
  ContentBlock,
  ModelMessage,
  ModelProvider,
  ModelUsage,
  ToolResultBlock,
  ToolUseBlock,
} from './model-provider.ts';
import { zeroUsage } from './model-provider.ts';
import type { AgentTool, ToolContext } from './tools/define-tool.ts';
import type { TranscriptWriter } from './transcript-writer.ts';

export type LoopStop = 'completed' | 'max_turns' | 'stopped';

export interface AgentLoopResult {
  stop: LoopStop;
  /** Why the loop stopped early (cancel, budget…), in words for the operation's reason. */
  reason?: string;
  finalText: string;
  turns: number;
  usage: ModelUsage;
}

export interface AgentLoopOptions {
  provider: ModelProvider;
  system: string;
  task: string;
  tools: readonly AgentTool[];
  context: ToolContext;
  maxTurns: number;
  maxTokensPerTurn?: number;
  transcript?: TranscriptWriter;
  /** Messages from people that arrived since the last turn; shown to the model before its next call. */
  readInbox?: () => Promise<string[]>;
  /** Checked before every model call: a reason ends the loop (cancel, budget). */
  shouldStop?: () => Promise<string | undefined>;
  /** Every model turn and tool call, for the operation's event stream. */
  onStep?: (
    step:
      | { kind: 'model'; turn: number; text: string; toolCalls: string[] }
      | { kind: 'tool'; name: string; input: unknown; isError: boolean; summary: string },
  ) => Promise<void>;
  /** Usage after every model call, so budgets and the dashboard stay current. */
  onUsage?: (delta: ModelUsage) => Promise<void>;
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
  const { provider, tools, context } = options;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const messages: ModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: options.task }] }];
  let usage = zeroUsage();
  let finalText = '';
  await options.transcript?.append('task', {
    system: options.system,
    task: options.task,
    tools: tools.map((t) => t.name),
  });

  for (let turn = 1; turn <= options.maxTurns; turn++) {
    const stopReason = await options.shouldStop?.();
    if (stopReason) return { stop: 'stopped', reason: stopReason, finalText, turns: turn - 1, usage };
    const notes = (await options.readInbox?.()) ?? [];
    if (notes.length > 0) {
      const last = messages[messages.length - 1]!;
      const text = `Message from the requester while you work:\n${notes.join('\n\n')}`;
      // Appended to the pending user turn: providers require user/assistant turns to alternate.
      last.content.push({ type: 'text', text });
      await options.transcript?.append('inbox', { turn, messages: notes });
    }

    const response = await provider.complete({
      system: options.system,
      messages,
      tools: tools.map((t) => t.spec),
      maxTokens: options.maxTokensPerTurn ?? 8192,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    usage = addUsage(usage, response.usage);
    await options.onUsage?.(response.usage);
    await options.transcript?.append('response', {
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
    await options.onStep?.({ kind: 'model', turn, text, toolCalls: calls.map((c) => c.name) });
    if (calls.length === 0) return { stop: 'completed', finalText, turns: turn, usage };

    const results: ContentBlock[] = [];
    for (const call of calls) {
      const tool = byName.get(call.name);
      const outcome = tool
        ? await tool.execute(call.input, context)
        : { content: `Unknown tool "${call.name}". Available: ${[...byName.keys()].join(', ')}.`, isError: true };
      const block: ToolResultBlock = { type: 'tool_result', toolUseId: call.id, content: outcome.content };
      if (outcome.isError) block.isError = true;
      results.push(block);
      await options.transcript?.append('tool', {
        turn,
        name: call.name,
        input: call.input,
        isError: outcome.isError,
        output: outcome.content,
      });
      await options.onStep?.({
        kind: 'tool',
        name: call.name,
        input: call.input,
        isError: outcome.isError,
        summary: outcome.content.split('\n')[0]?.slice(0, 200) ?? '',
      });
    }
    messages.push({ role: 'user', content: results });
  }
  return {
    stop: 'max_turns',
    reason: `the model used all ${options.maxTurns} turns`,
    finalText,
    turns: options.maxTurns,
    usage,
  };
}
