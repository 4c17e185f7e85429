import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@pullwright/policy';
import { type Redactor, sanitizeUntrustedText } from '@pullwright/security';
import { type AgentTool, truncateOutput } from '../tools/define-tool.ts';

/** One MCP tool call as the run record keeps it (output as the model saw it: redacted, cut). */
export interface McpCallRecord {
  server: string;
  tool: string;
  input: unknown;
  output: string;
  isError: boolean;
  durationMs: number;
}

/** Characters of a server's tool description the model gets: enough to know when to call it. */
const MAX_DESCRIPTION_CHARS = 1000;

/** `mcp__<server>__<tool>`, within the 64 characters of `[A-Za-z0-9_-]` both model APIs accept. */
function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}

interface Channel {
  call(args: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
  /** Why the server can no longer answer, once it cannot. */
  gone(): string | undefined;
  redactor: Pick<Redactor, 'redact'>;
  onCall?: (call: McpCallRecord) => Promise<void>;
}

/**
 * An MCP tool as the model loop sees it, under the rules of the built-in ones: its output is
 * untrusted text (sanitized, credentials masked, cut to MAX_TOOL_OUTPUT_CHARS), a failure is
 * an error the model reads (never an exception out of the loop, except a cancel), and every
 * call is reported for the run record. It can change no file: the model's only way to the
 * worktree is its file tools behind the workspace gate.
 */
export function mcpAgentTool(server: McpServer, tool: Tool, channel: Channel): AgentTool {
  const name = mcpToolName(server.name, tool.name);
  const { $schema: _ignored, ...inputSchema } = tool.inputSchema as Record<string, unknown>;
  const about = sanitizeUntrustedText(tool.description ?? '').slice(0, MAX_DESCRIPTION_CHARS);
  const clean = (text: string) => truncateOutput(channel.redactor.redact(sanitizeUntrustedText(text)));
  return {
    name,
    readOnly: true,
    spec: { name, description: `[MCP server ${server.name}] ${about || tool.name}`, inputSchema },
    async execute(input, ctx) {
      const started = performance.now();
      let output: string;
      let isError: boolean;
      const gone = channel.gone();
      if (gone) {
        output = `${name} is unavailable: the MCP server ${server.name} is not running (${gone}). Carry on without it.`;
        isError = true;
      } else if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        output = `Invalid input for ${name}: the arguments must be a JSON object.`;
        isError = true;
      } else {
        try {
          const result = (await channel.call(input as Record<string, unknown>, ctx.signal)) as CallToolResult;
          output = clean(resultText(result));
          isError = result.isError === true;
        } catch (err) {
          // A cancelled operation stops the loop; anything the server or the connection says goes to the model.
          if (ctx.signal?.aborted) throw err;
          output = clean(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
          isError = true;
        }
      }
      await channel.onCall?.({
        server: server.name,
        tool: tool.name,
        input,
        output,
        isError,
        durationMs: Math.round(performance.now() - started),
      });
      return { content: output, isError };
    },
  };
}

/** The result's content as text: text as is, structured content as JSON, other media named. */
function resultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'resource_link':
        return `[resource ${block.uri}]`;
      case 'resource':
        return 'text' in block.resource ? block.resource.text : `[binary resource ${block.resource.uri}]`;
      default:
        return `[${block.type} content omitted]`;
    }
  });
  if (parts.length === 0 && result.structuredContent) parts.push(JSON.stringify(result.structuredContent));
  return parts.join('\n') || '(no output)';
}
