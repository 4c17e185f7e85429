import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, TEST_TOKEN, type TestSystem } from './support/test-runtime.ts';

/**
 * Issue 31: `pullwright mcp`, driven by the MCP SDK's own client over stdio as an editor runs
 * it: create an operation, read its status and diff, approve it — with the caller's identity
 * and the same policy as the REST API, so an identity without the role is refused.
 */

const CLI = path.resolve(import.meta.dirname, '../apps/cli/bin/pullwright.js');
const IDENTITIES = [
  { id: 'maria', role: 'committer', api: ['maria'] },
  { id: 'pat', role: 'proposer', api: ['pat'] },
];

describe('pullwright mcp', () => {
  let sys: TestSystem;
  let tokenFile: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    tokenFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'pw-mcp-token-')), 'token');
    writeFileSync(tokenFile, `${TEST_TOKEN}\n`);
    sys = await startTestSystem({ env: { IDENTITIES: JSON.stringify(IDENTITIES) } });
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.close();
    await sys?.stop();
    rmSync(path.dirname(tokenFile), { recursive: true, force: true });
  });

  /** An editor's MCP client; `pat` reads the token from a file, as PULLWRIGHT_TOKEN_FILE allows. */
  async function editor(user: string): Promise<Client> {
    const token = user === 'pat' ? { PULLWRIGHT_TOKEN_FILE: tokenFile } : { PULLWRIGHT_TOKEN: TEST_TOKEN };
    const client = new Client({ name: 'editor', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          PULLWRIGHT_URL: sys.api.url,
          ...token,
          PULLWRIGHT_USER: user,
        },
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    return { isError: result.isError === true, text };
  };

  it('refuses to start without the API token, naming the variable', () => {
    const r = spawnSync(process.execPath, [CLI, 'mcp'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', PULLWRIGHT_URL: sys.api.url },
      input: '',
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('pullwright mcp: PULLWRIGHT_TOKEN (or PULLWRIGHT_TOKEN_FILE) is required: the API token\n');
  });

  it('offers the REST API’s verbs and nothing more', async () => {
    const client = await editor('maria');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'approve_operation',
      'cancel_operation',
      'create_operation',
      'get_diff',
      'get_evidence',
      'get_ledger',
      'get_operation',
      'list_operations',
      'reject_operation',
      'request_changes',
    ]);
  });

  it('creates an operation, reads its status and diff, and approves it; refused for an identity without the role', async () => {
    const repo = await createSampleRepo(sys.runtime.localForge!);
    const maria = await editor('maria');
    const created = await call(maria, 'create_operation', { type: 'debug', repo, description: 'slugify keeps spaces' });
    expect(created.isError).toBe(false);
    const { id } = JSON.parse(created.text) as { id: string };
    expect((await sys.runtime.store.get(id)).requester).toMatchObject({ source: 'api', user: 'maria' });

    let status = '';
    await expect
      .poll(
        async () => {
          status = (JSON.parse((await call(maria, 'get_operation', { id })).text) as { status: string }).status;
          return ['awaiting_approval', 'failed'].includes(status);
        },
        { timeout: 45_000, interval: 200 },
      )
      .toBe(true);
    expect(status).toBe('awaiting_approval');

    const diff = JSON.parse((await call(maria, 'get_diff', { id })).text) as { files: { path: string }[] };
    expect(diff.files.map((f) => f.path)).toContain('src/slugify.js');

    const pat = await editor('pat');
    const refused = await call(pat, 'approve_operation', { id });
    expect(refused).toEqual({
      isError: true,
      text: 'The Pullwright API refused: 403 forbidden: pat may not approve: that needs the committer role (pat has the proposer role)',
    });
    expect((await sys.runtime.store.get(id)).status).toBe('awaiting_approval');

    const approved = await call(maria, 'approve_operation', { id });
    expect(approved.isError).toBe(false);
    expect(JSON.parse(approved.text)).toMatchObject({ id });
    const op = await sys.runtime.store.get(id);
    expect(op.approvals?.map((a) => [a.user, a.source, a.role])).toEqual([['maria', 'api', 'committer']]);
  });
});
