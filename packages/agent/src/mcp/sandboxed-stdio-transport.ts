import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RunningCommand } from '@pullwright/sandbox';

/**
 * The MCP stdio transport over a command the sandbox runs: newline-delimited JSON-RPC on its
 * stdin and stdout, parsed by the SDK's own reader. The SDK's `StdioClientTransport` spawns
 * the server itself, on the host; a repository's server must run where its code cannot reach
 * the worker, so the process comes from the sandbox's `start` and only the framing is shared.
 */
export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** How the server ended, once it has (undefined while it runs or before it started). */
  exit: { exitCode: number | null; killedBy?: string } | undefined;
  readonly #buffer = new ReadBuffer();
  #server: RunningCommand | undefined;

  constructor(private readonly launch: () => Promise<RunningCommand>) {}

  /** What the server wrote on stderr so far (its last 8 KiB): why it failed to start or died. */
  stderr(): string {
    return this.#server?.stderr() ?? '';
  }

  async start(): Promise<void> {
    const server = await this.launch();
    this.#server = server;
    server.stdout.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#buffer.readMessage();
        } catch (err) {
          this.onerror?.(err as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    server.stdout.on('error', (err) => this.onerror?.(err));
    void server.exited.then((exit) => {
      this.exit = exit;
      this.onclose?.();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const server = this.#server;
    if (!server || this.exit) throw new Error('the MCP server is not running');
    if (!server.stdin.write(serializeMessage(message))) await new Promise((r) => server.stdin.once('drain', r));
  }

  async close(): Promise<void> {
    await this.#server?.stop();
    this.#buffer.clear();
  }
}
