import type { AgentStep } from '@pullwright/agent';
import type { OperationEvents } from '@pullwright/queue';

/** Records one agent loop step (a model turn or a tool call) as its `model` or `tool` event. */
export function agentStepEvent(events: Pick<OperationEvents, 'append'>, opId: string) {
  return async (step: AgentStep): Promise<void> => {
    if (step.kind === 'model') {
      const { kind: _model, ...turn } = step;
      await events.append(opId, 'model', turn);
    } else {
      const { kind: _tool, ...call } = step;
      await events.append(opId, 'tool', call);
    }
  };
}
