import { readFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { pullwrightMcpServer } from './pullwright-mcp-server.ts';
import { RestClient } from './rest-client.ts';

const optional = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v.trim() : undefined));

/** What `pullwright mcp` reads from its environment (the editor's MCP configuration sets it). */
const McpClientEnv = z.object({
  /** The Pullwright API (its PUBLIC_URL). Default http://127.0.0.1:3000, where `pullwright start` listens. */
  PULLWRIGHT_URL: z.url().default('http://127.0.0.1:3000'),
  /** The API token (or PULLWRIGHT_TOKEN_FILE: a file holding it). */
  PULLWRIGHT_TOKEN: optional,
  PULLWRIGHT_TOKEN_FILE: optional,
  /** Who the editor's requests act as: a handle IDENTITIES lists under `api`, which gives its role. Default `api`. */
  PULLWRIGHT_USER: z.string().min(1).max(200).default('api'),
});

/**
 * `pullwright mcp`: serves Pullwright's MCP tools on stdin/stdout until the editor closes the
 * pipe. A client of the REST API: nothing here decides who may do what.
 */
export async function mcpCommand(env: NodeJS.ProcessEnv, stderr: NodeJS.WritableStream): Promise<number> {
  const parsed = McpClientEnv.safeParse(env);
  if (!parsed.success) {
    stderr.write(`pullwright mcp: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}\n`);
    return 2;
  }
  const { PULLWRIGHT_URL: url, PULLWRIGHT_TOKEN_FILE: tokenFile, PULLWRIGHT_USER: user } = parsed.data;
  const token = parsed.data.PULLWRIGHT_TOKEN ?? (tokenFile ? readFileSync(tokenFile, 'utf8').trim() : undefined);
  if (!token) {
    stderr.write('pullwright mcp: PULLWRIGHT_TOKEN (or PULLWRIGHT_TOKEN_FILE) is required: the API token\n');
    return 2;
  }
  const server = pullwrightMcpServer(new RestClient(url, token, user));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
  return 0;
}
