import type { z } from 'zod';
import { type AgentLoopOptions, type AgentLoopResult, runAgentLoop } from '../agent-loop.ts';
import { extractModelJson, type Parsed } from '../extract-model-json.ts';
import type { ModelMessage } from '../model-provider.ts';
import type { ConversationPhase, SolveJournal } from '../solve-journal.ts';
import type { SolveInput } from './solve-input.ts';

/** One conversation of a role, journaled: replayed when an earlier attempt recorded it, else run (or continued). */
export type Converse = (
  role: string,
  system: string,
  task: string,
  tools: AgentLoopOptions['tools'],
  messages?: ModelMessage[],
) => Promise<AgentLoopResult>;

/** The solve's one way to talk to the model: every role's loop gets the same hooks, budget and journal. */
export function converseFor(input: SolveInput, journal: SolveJournal): Converse {
  return (role, system, task, tools, messages) =>
    journal.conversation(role, phaseOf(role), (resume, onTurn) =>
      runAgentLoop({
        provider: input.provider,
        system,
        task,
        ...(resume ? { messages: resume.messages, resume } : messages ? { messages } : {}),
        // issue 31: a role that calls tools also gets the MCP tools the policy gives it.
        tools: tools.length > 0 ? [...tools, ...(input.extraTools?.(role) ?? [])] : tools,
        context: input.context,
        budget: input.budget,
        role,
        onTurn,
        ...(input.transcript ? { transcript: input.transcript } : {}),
        ...(input.shouldStop ? { shouldStop: input.shouldStop } : {}),
        ...(input.readInbox ? { readInbox: input.readInbox } : {}),
        ...(input.onStep ? { onStep: input.onStep } : {}),
        ...(input.onUsage ? { onUsage: input.onUsage } : {}),
        ...(input.onModelCall ? { onModelCall: input.onModelCall } : {}),
      }),
    );
}

/** Which phase of the solve a role's conversation belongs to. */
function phaseOf(role: string): ConversationPhase {
  if (role === 'planner') return 'plan';
  if (role === 'reviewer') return 'review';
  return role === 'fixer' ? 'repair' : 'code';
}

/** The corrective turn after an answer that did not validate. */
export function notValid(problem: string): ModelMessage {
  return {
    role: 'user',
    content: [
      {
        type: 'text',
        text: `That answer is not valid: ${problem}. Reply with only the JSON object, matching the schema exactly.`,
      },
    ],
  };
}

/** Asks a role for a JSON answer; one corrective retry in the same conversation when it does not validate. */
export async function askForJson<S extends z.ZodType>(
  converse: Converse,
  role: string,
  schema: S,
  system: string,
  task: string,
  tools: AgentLoopOptions['tools'],
): Promise<{ parsed: Parsed<z.infer<S>> } | { stop: AgentLoopResult }> {
  const first = await converse(role, system, task, tools);
  if (first.stop !== 'completed') return { stop: first };
  const parsed = extractModelJson(schema, first.finalText);
  if (parsed.ok) return { parsed };
  const second = await converse(role, system, task, tools, [...first.messages, notValid(parsed.problem)]);
  if (second.stop !== 'completed') return { stop: second };
  return { parsed: extractModelJson(schema, second.finalText) };
}
