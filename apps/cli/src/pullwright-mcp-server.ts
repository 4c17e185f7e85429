import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OperationStatus, OperationType } from '@pullwright/core';
import { z } from 'zod';
import { type RestClient, RestError } from './rest-client.ts';

const Id = z
  .string()
  .regex(/^[a-z0-9]{6,40}$/)
  .describe('The operation id');
const path = (id: string, rest = '') => `/v1/operations/${encodeURIComponent(id)}${rest}`;

/** A tool's answer: the API's JSON as text, or its refusal in words (an error the editor's model reads). */
async function answer(call: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: JSON.stringify(await call(), null, 2) }] };
  } catch (err) {
    if (err instanceof RestError)
      return { content: [{ type: 'text', text: `The Pullwright API refused: ${err.message}` }], isError: true };
    return {
      content: [{ type: 'text', text: `The Pullwright API could not be reached: ${(err as Error).message}` }],
      isError: true,
    };
  }
}

/**
 * `pullwright mcp`: an MCP server of Pullwright's own, so an editor's agent can ask for an
 * operation, follow it and decide on it. Every tool is one REST call (or two reads) made as
 * the configured caller: the API authorizes it exactly as any other request — the same roles,
 * the same policy, in one place — and this server adds no verb the API does not have.
 */
export function pullwrightMcpServer(api: RestClient): McpServer {
  const server = new McpServer({ name: 'pullwright', version: '0.1.0' });
  const ro = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'create_operation',
    {
      description:
        'Ask Pullwright for a change: it plans, edits, runs the checks in a sandbox and opens a pull request (POST /v1/operations).',
      inputSchema: {
        type: OperationType,
        description: z.string().min(1).describe('What to do, in words'),
        repo: z.string().optional().describe('owner/name; default: the service’s DEFAULT_REPO'),
        baseBranch: z.string().optional(),
        targetFiles: z.array(z.string()).optional().describe('Files the change is about'),
        errorText: z.string().optional().describe('For debug and fix: the error to reproduce'),
      },
    },
    ({ errorText, ...rest }) =>
      answer(() => api.post('/v1/operations', { ...rest, ...(errorText ? { context: { errorText } } : {}) })),
  );
  server.registerTool(
    'list_operations',
    {
      description: 'List operations, newest first (GET /v1/operations).',
      inputSchema: { status: OperationStatus.optional(), repo: z.string().optional() },
      annotations: ro,
    },
    ({ status, repo }) => {
      const query = new URLSearchParams({ ...(status ? { status } : {}), ...(repo ? { repo } : {}) });
      return answer(() => api.get(`/v1/operations${query.size ? `?${query}` : ''}`));
    },
  );
  server.registerTool(
    'get_operation',
    {
      description: 'An operation’s status, plan, summary, checks, pull request and error (GET /v1/operations/:id).',
      inputSchema: { id: Id },
      annotations: ro,
    },
    ({ id }) => answer(() => api.get(path(id))),
  );
  server.registerTool(
    'get_diff',
    {
      description: 'The pull request’s diff, per file (GET /v1/operations/:id/diff).',
      inputSchema: { id: Id },
      annotations: ro,
    },
    ({ id }) => answer(() => api.get(path(id, '/diff'))),
  );
  server.registerTool(
    'get_evidence',
    {
      description:
        'What shows the change works: red → green evidence, check results, secret-scan findings, risk, the review, and the run record’s files.',
      inputSchema: { id: Id },
      annotations: ro,
    },
    ({ id }) =>
      answer(async () => {
        const op = (await api.get(path(id))) as Record<string, unknown>;
        const { artifacts } = (await api.get(path(id, '/artifacts'))) as { artifacts: unknown };
        const { evidence, checks, findings, risk, review } = op;
        return { evidence, checks, findings, risk, review, runRecord: artifacts };
      }),
  );
  server.registerTool(
    'get_ledger',
    {
      description: 'The review ledger: every change request, who asked it, and what was done about it.',
      inputSchema: { id: Id },
      annotations: ro,
    },
    ({ id }) => answer(async () => ({ ledger: ((await api.get(path(id))) as { ledger?: unknown }).ledger ?? [] })),
  );
  server.registerTool(
    'approve_operation',
    {
      description:
        'Approve the pull request (POST /v1/operations/:id/approve); refused unless your role may approve. headSha pins the commit you reviewed.',
      inputSchema: { id: Id, headSha: z.string().optional() },
    },
    ({ id, headSha }) => answer(() => api.post(path(id, '/approve'), headSha ? { headSha } : {})),
  );
  server.registerTool(
    'request_changes',
    {
      description:
        'Ask for changes to the pull request in words: Pullwright revises the same branch (POST /v1/operations/:id/revise).',
      inputSchema: { id: Id, instruction: z.string().min(1) },
    },
    ({ id, instruction }) => answer(() => api.post(path(id, '/revise'), { instruction })),
  );
  server.registerTool(
    'reject_operation',
    {
      description: 'Reject the pull request (POST /v1/operations/:id/reject).',
      inputSchema: { id: Id, reason: z.string().optional() },
    },
    ({ id, reason }) => answer(() => api.post(path(id, '/reject'), reason ? { reason } : {})),
  );
  server.registerTool(
    'cancel_operation',
    { description: 'Cancel a queued or running operation (POST /v1/operations/:id/cancel).', inputSchema: { id: Id } },
    ({ id }) => answer(() => api.post(path(id, '/cancel'))),
  );
  return server;
}
