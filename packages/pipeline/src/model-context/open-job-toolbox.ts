import { McpToolbox } from '@pullwright/agent';
import type { PreparedWork, WorkContext } from '../work/work-context.ts';

/**
 * The MCP servers of this job's operation, started for its agent step: stdio ones in the
 * sandbox, in the worktree mounted read-only and without network (their only way to change
 * a file would be the model's file tools, behind the workspace gate), for at most the
 * operation's wall-time budget; HTTP ones with the credential the policy names, read from the
 * worker's environment. Each server's start, failure or exit is an `mcp` event; each call a
 * numbered file of the run record. The caller closes it when the step ends.
 */
export function openJobToolbox(
  ctx: WorkContext,
  work: Pick<PreparedWork, 'ws' | 'mcpServers' | 'record' | 'budget'>,
): Promise<McpToolbox> {
  const { deps } = ctx;
  const { ws, mcpServers, record, budget } = work;
  const runner = deps.runner;
  const start = runner.sandboxed ? runner.start?.bind(runner) : undefined;
  return McpToolbox.open({
    servers: mcpServers,
    startCommand: start
      ? (command) =>
          start({
            command,
            cwd: ws.dir,
            root: ws.dir,
            readOnlyRoot: true,
            timeoutMs: budget.limits.wallMs,
          })
      : undefined,
    env: process.env,
    redactor: deps.redactor,
    root: ws.dir,
    onServer: (event) => deps.events.append(ctx.opId, 'mcp', { ...event }).then(() => undefined),
    onCall: (call) => record.mcpCall(call),
  });
}
