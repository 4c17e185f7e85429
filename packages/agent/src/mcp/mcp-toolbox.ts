import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { PullwrightError } from '@pullwright/core';
import type { McpRole, McpServer } from '@pullwright/policy';
import type { RunningCommand } from '@pullwright/sandbox';
import { type Redactor, sanitizeUntrustedText } from '@pullwright/security';
import type { AgentTool } from '../tools/define-tool.ts';
import { type McpCallRecord, mcpAgentTool } from './mcp-agent-tool.ts';
import { SandboxedStdioTransport } from './sandboxed-stdio-transport.ts';

/** What the operation records about each server: ready with its tools, or why not. */
export type McpServerEvent =
  | { server: string; state: 'ready'; tools: string[] }
  | { server: string; state: 'failed'; required: boolean; reason: string }
  | { server: string; state: 'exited'; reason: string };

interface McpToolboxOptions {
  servers: readonly McpServer[];
  /**
   * Starts a stdio server's command in the sandbox (cwd the worktree, mounted read-only, no
   * network). Undefined when this worker's sandbox cannot: its stdio servers fail to start.
   */
  startCommand?: ((command: string) => Promise<RunningCommand>) | undefined;
  /** Where `credential_env` names are read (the worker's environment). */
  env: Readonly<Record<string, string | undefined>>;
  /** Masks secrets (credentials are added to it) and credential-shaped text in outputs and notes. */
  redactor: Pick<Redactor, 'redact' | 'addSecret'>;
  /** The worktree's path, cut from a server's error output (a note never shows host paths). */
  root: string;
  onServer?: (event: McpServerEvent) => Promise<void>;
  onCall?: (call: McpCallRecord) => Promise<void>;
  /** How long a server has to start and list its tools. Default 30 s (an npx-less node server starts in ~0.3 s). */
  connectTimeoutMs?: number;
}

/** A required MCP server that did not start: the operation fails with this reason. */
export class McpServerUnavailableError extends PullwrightError<{ server: string }> {
  constructor(server: string, reason: string) {
    super('config_invalid', `the required MCP server ${server} did not start: ${reason}`, { server });
  }
}

const CLIENT_INFO = { name: 'pullwright', version: '0.1.0' };
const MAX_TOOLS_PER_SERVER = 200;

interface Connected {
  server: McpServer;
  client: Client;
  transport: Transport;
  tools: Tool[];
  /** Set once the server is gone: every later call says so. */
  gone?: string;
}

/**
 * The team's MCP servers for one job: started (stdio ones in the sandbox) and asked for their
 * tools when the agent step begins, offered to each role as the policy allows, closed when the
 * step ends. A server that fails to start is reported (`onServer`) and left out; a required
 * one ends the operation (`McpServerUnavailableError`).
 */
export class McpToolbox {
  private constructor(
    private readonly connected: Connected[],
    private readonly options: McpToolboxOptions,
  ) {}

  static async open(options: McpToolboxOptions): Promise<McpToolbox> {
    const connected: Connected[] = [];
    const toolbox = new McpToolbox(connected, options);
    for (const server of options.servers) {
      const result = await connect(server, options).catch((err: unknown) => ({ reason: reasonOf(err, options) }));
      if ('reason' in result) {
        await options.onServer?.({
          server: server.name,
          state: 'failed',
          required: server.required,
          reason: result.reason,
        });
        if (server.required) {
          await toolbox.close();
          throw new McpServerUnavailableError(server.name, result.reason);
        }
        continue;
      }
      connected.push(result);
      result.client.onclose = () => {
        if (result.gone) return;
        result.gone = exitReason(result.transport, options);
        void options.onServer?.({ server: server.name, state: 'exited', reason: result.gone });
      };
      await options.onServer?.({ server: server.name, state: 'ready', tools: result.tools.map((t) => t.name) });
    }
    return toolbox;
  }

  /** The MCP tools `role` may call, named `mcp__<server>__<tool>`. */
  toolsFor(role: string): AgentTool[] {
    const tools: AgentTool[] = [];
    for (const c of this.connected) {
      const allowed = c.server.roles[role as McpRole] ?? [];
      for (const tool of c.tools) {
        if (!allowed.includes('*') && !allowed.includes(tool.name)) continue;
        tools.push(
          mcpAgentTool(c.server, tool, {
            call: (args, signal) =>
              c.client.callTool({ name: tool.name, arguments: args }, undefined, {
                timeout: c.server.timeoutMs,
                ...(signal ? { signal } : {}),
              }),
            gone: () => c.gone,
            redactor: this.options.redactor,
            ...(this.options.onCall ? { onCall: this.options.onCall } : {}),
          }),
        );
      }
    }
    return tools;
  }

  /** Ends every server (stdio ones and everything they started). */
  async close(): Promise<void> {
    for (const c of this.connected) {
      // Closed on purpose: no "exited" report.
      c.gone ??= 'closed';
      await c.client.close().catch(() => undefined);
    }
  }
}

async function connect(server: McpServer, options: McpToolboxOptions): Promise<Connected> {
  const transport = transportFor(server, options);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const timeout = options.connectTimeoutMs ?? 30_000;
  try {
    await client.connect(transport, { timeout });
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < MAX_TOOLS_PER_SERVER);
    return { server, client, transport, tools: tools.slice(0, MAX_TOOLS_PER_SERVER) };
  } catch (err) {
    const reason =
      transport instanceof SandboxedStdioTransport && transport.exit ? exitReason(transport, options) : undefined;
    await client.close().catch(() => undefined);
    throw reason ? new Error(reason) : err;
  }
}

function transportFor(server: McpServer, options: McpToolboxOptions): Transport {
  const t = server.transport;
  if (t.kind === 'stdio') {
    const start = options.startCommand;
    if (!start)
      throw new Error(
        "stdio MCP servers run only in a sandbox that keeps them from writing the worktree (SANDBOX=bubblewrap); this worker's sandbox cannot start them",
      );
    return new SandboxedStdioTransport(() => start(t.command));
  }
  const headers: Record<string, string> = {};
  if (t.credentialEnv) {
    const credential = options.env[t.credentialEnv]?.trim();
    if (!credential) throw new Error(`its credential variable ${t.credentialEnv} is not set on the worker`);
    options.redactor.addSecret(credential);
    headers.authorization = `Bearer ${credential}`;
  }
  return new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers } });
}

/** Why a stdio server ended: its exit, and the last line it wrote on stderr. */
function exitReason(transport: Transport, options: McpToolboxOptions): string {
  if (!(transport instanceof SandboxedStdioTransport)) return 'the connection closed';
  const exit = transport.exit;
  const how = !exit
    ? 'the connection closed'
    : exit.killedBy
      ? `it was stopped (${exit.killedBy})`
      : `it exited with ${exit.exitCode ?? 'a signal'}`;
  const said = transport.stderr().trim().split('\n').at(-1)?.slice(0, 300);
  return cleanText(said ? `${how}: ${said}` : how, options);
}

function reasonOf(err: unknown, options: McpToolboxOptions): string {
  return cleanText(err instanceof Error ? err.message : String(err), options);
}

/** A note for people and the model: secrets masked, hidden characters removed, no host paths. */
function cleanText(text: string, options: McpToolboxOptions): string {
  return options.redactor.redact(sanitizeUntrustedText(text.split(options.root).join('.')));
}
