import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ScriptedModel, textReply, toolCall } from '@pullwright/agent/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPT_REPLY, createAnswerRepo, editAnswer, jsonReply } from './support/answer-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/**
 * Issue 31: the team's tools over MCP. A stdio server written for the test (one read tool, one
 * that tries to write outside the worktree) runs in the sandbox; its read answers through the
 * model loop, its write cannot happen and the operation goes on; every call is in the
 * transcript and the run record; a server that crashes at start leaves a readable note and the
 * operation still reaches its PR.
 */

const FIXTURE = path.resolve(import.meta.dirname, '../packages/agent/src/mcp/testing/fixture-mcp-server.mjs');

const POLICY = `
mcp:
  servers:
    team:
      command: node tools/mcp.mjs
      roles: { planner: [lookup], coder: ['*'] }
    broken:
      command: node tools/mcp.mjs --crash
      roles: { coder: ['*'] }
`;

const plan = {
  summary: 'Set the answer to 44',
  steps: [{ title: 'Fix the answer', files: ['src/app.js'], acceptance: 'the answer test passes', tests: ['test'] }],
};

describe('MCP tools in an operation', () => {
  let sys: TestSystem;
  let model: ScriptedModel;
  let outside: string;
  let id: string;

  beforeAll(async () => {
    outside = mkdtempSync(path.join(os.tmpdir(), 'pw-mcp-escape-'));
    model = new ScriptedModel(
      [
        toolCall('mcp__team__lookup', { topic: 'logging' }),
        jsonReply(plan),
        toolCall('mcp__team__write_outside', { path: path.join(outside, 'escaped.txt') }),
        editAnswer(41, 44),
        textReply('Set the answer to 44.'),
        ACCEPT_REPLY,
      ],
      'replay:mcp',
    );
    sys = await startTestSystem();
    sys.runtime.createProvider = () => model;
    const repo = await createAnswerRepo(sys.runtime.localForge!, 'acme/mcp', {
      '.pullwright.yml': POLICY,
      'tools/mcp.mjs': readFileSync(FIXTURE, 'utf8'),
    });
    const res = await sys.request('POST', '/v1/operations', {
      type: 'fix',
      repo,
      description: 'Make the answer test pass',
    });
    expect(res.status).toBe(202);
    id = ((await res.json()) as { id: string }).id;
  }, 60_000);

  afterAll(async () => {
    await sys?.stop();
    rmSync(outside, { recursive: true, force: true });
  });

  it('offers each role its tools; the read tool answers through the loop; the operation reaches its PR', async () => {
    const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(op.error).toBeUndefined();
    expect(op.pullRequest?.number).toBeGreaterThan(0);
    const toolsOf = (i: number) => model.calls[i]!.request.tools.map((t) => t.name);
    expect(model.calls.map((c) => c.role)).toEqual(['planner', 'planner', 'coder', 'coder', 'coder', 'reviewer']);
    expect(toolsOf(0)).toEqual(['list_dir', 'read_file', 'search', 'mcp__team__lookup']);
    expect(toolsOf(2).filter((n) => n.startsWith('mcp__'))).toEqual(['mcp__team__lookup', 'mcp__team__write_outside']);
    expect(toolsOf(5)).toEqual(['list_dir', 'read_file', 'search']);
    const lookup = model.calls[1]!.request.messages.at(-1)!.content[0];
    expect(lookup).toMatchObject({
      type: 'tool_result',
      content: expect.stringMatching(
        /^Convention for logging: use the team logger\. Files here: .*src, test\.js, tools$/,
      ),
    });
  });

  it('cannot write outside the worktree (or into it): the server is sandboxed, and the operation went on', async () => {
    await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    const result = model.calls[3]!.request.messages.at(-1)!.content[0] as { content: string };
    const target = path.join(outside, 'escaped.txt');
    expect(result.content).toMatch(
      new RegExp(`^could not write ${target}: ENOENT\ncould not write .*escaped\\.txt: EROFS$`),
    );
    expect(existsSync(target)).toBe(false);
    const op = await sys.runtime.store.get(id);
    expect(op.filesChanged).toEqual(['src/app.js']);
  });

  it('records every call in the transcript and the run record', async () => {
    await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    const transcript = (await sys.transcript(id))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; name?: string; output?: string });
    expect(transcript.filter((l) => l.kind === 'tool' && l.name?.startsWith('mcp__')).map((l) => l.name)).toEqual([
      'mcp__team__lookup',
      'mcp__team__write_outside',
    ]);
    const list = (await (await sys.request('GET', `/v1/operations/${id}/artifacts`)).json()) as {
      artifacts: { name: string }[];
    };
    const calls = list.artifacts.map((a) => a.name).filter((n) => /^\d{3}-mcp-team\.json$/.test(n));
    expect(calls).toHaveLength(2);
    const first = (await (await sys.request('GET', `/v1/operations/${id}/artifacts/${calls[0]}`)).json()) as Record<
      string,
      unknown
    >;
    expect(first).toMatchObject({ server: 'team', tool: 'lookup', input: { topic: 'logging' }, is_error: false });
    expect(String(first.output)).toMatch(/^Convention for logging/);
  });

  it('says in words that the crashing server did not start, and which tools the other one offers', async () => {
    await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    const events = (await sys.runtime.events.list(id)).filter((e) => e.type === 'mcp').map((e) => e.data);
    expect(events).toEqual([
      { server: 'team', state: 'ready', tools: ['lookup', 'write_outside'] },
      {
        server: 'broken',
        state: 'failed',
        required: false,
        reason: 'it exited with 2: fatal: cannot read the server configuration',
      },
    ]);
  });
});
