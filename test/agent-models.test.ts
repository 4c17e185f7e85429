import {
  chatCompletion,
  json,
  type Responder,
  type ScriptedServer,
  startScriptedServer,
} from '@pullwright/agent/testing';
import { sampleSecret } from '@pullwright/security/credential-samples';
import { eventually } from '@pullwright/testing/eventually';
import { afterEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import {
  aText,
  aTool,
  FIXED_LINE,
  SLUGIFY_ACCEPT,
  SLUGIFY_PLAN,
  slugifyFixScript,
} from './support/slugify-model-script.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

// Planted: it must reach the model server as a credential and appear nowhere else.
const ANTHROPIC_KEY = 'sk-ant-api03-PLANTEDplantedPLANTEDplanted0123456789abcdef';
const OPENAI_KEY = sampleSecret('openai-api-key', 17);

const plan = SLUGIFY_PLAN;
const accept = SLUGIFY_ACCEPT;
const FIXED_FILE = `/** Turns a title into a URL slug: "Hello Big World" -> "hello-big-world". */\nexport function slugify(title) {\n${FIXED_LINE}\n}\n`;

let toolSeq = 0;
const oText = (content: string): Responder =>
  json(chatCompletion({ content, finishReason: 'stop', usage: { prompt_tokens: 900, completion_tokens: 80 } }));
const oTool = (name: string, args: unknown): Responder =>
  json(
    chatCompletion({
      toolCalls: [{ id: `call_${++toolSeq}`, name, arguments: JSON.stringify(args) }],
      finishReason: 'tool_calls',
      usage: { prompt_tokens: 900, completion_tokens: 40 },
    }),
  );
const replaceLine3 = (newText: string) => ({ path: 'src/slugify.js', mode: 'replace_lines', line: 3, newText });

/** The request texts the model server received, system prompt included, for assertions on prompts. */
function requestText(server: ScriptedServer, i: number): string {
  return JSON.stringify(server.requests[i]?.body ?? {});
}

function toolNames(server: ScriptedServer, i: number): string[] {
  const body = server.requests[i]?.body as { tools?: { name?: string; function?: { name: string } }[] };
  return (body.tools ?? []).map((t) => t.name ?? t.function?.name ?? '?');
}

describe('agent loop against real model APIs (local servers)', () => {
  let sys: TestSystem | undefined;
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await sys?.stop();
    await server?.close();
    sys = undefined;
    server = undefined;
  });

  async function start(provider: 'anthropic' | 'openai', script: Responder[], env: Record<string, string> = {}) {
    server = await startScriptedServer(script);
    const providerEnv =
      provider === 'anthropic'
        ? {
            LLM_PROVIDER: 'anthropic',
            ANTHROPIC_API_KEY: ANTHROPIC_KEY,
            ANTHROPIC_BASE_URL: server.url,
            LLM_MODEL: 'claude-sonnet-5-5',
          }
        : {
            LLM_PROVIDER: 'openai',
            OPENAI_API_KEY: OPENAI_KEY,
            OPENAI_BASE_URL: `${server.url}/v1`,
            LLM_MODEL: 'gpt-6.1-sol',
            // The scripted server answers as an unlisted model (as gateways and local models do):
            // without a price, the cost budget could not be kept and the operation would stop.
            LLM_PRICES: JSON.stringify({ 'gpt-test': { input: 2, output: 10 } }),
          };
    sys = await startTestSystem({ env: { ...providerEnv, ...env } });
    const repo = await createSampleRepo(sys.runtime.localForge!);
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    return { id: ((await res.json()) as { id: string }).id, repo };
  }

  it('runs a /debug operation red → green over the Anthropic Messages API (streaming), with roles, usage and cost', async () => {
    const { id, repo } = await start('anthropic', slugifyFixScript());
    const op = await waitForStatus(sys!, id, ['awaiting_approval', 'failed']);
    expect(op.error).toBeUndefined();
    expect(op.evidence).toMatchObject({
      reproduced: true,
      green: ['ignores surrounding and repeated spaces', 'joins every word with a dash'],
    });
    expect(op.review).toMatchObject({ decision: 'accept' });
    // README: the red → green evidence is on the PR, in its body and its tracking comment.
    const reproduced =
      '**Reproduced, red → green:** 2 test(s) failed before the change and pass with it: `ignores surrounding and repeated spaces`, `joins every word with a dash`.';
    const forge = sys!.runtime.localForge!;
    expect((await forge.getPullRequest(repo, op.pullRequest!.number)).body).toContain(`## Evidence\n${reproduced}`);
    expect(await forge.trackingComment(repo, op.pullRequest!.number)).toContain(reproduced);
    expect(op.usage.modelCalls).toBe(7);
    expect(op.usage.costUsd).toBeGreaterThan(0);
    expect(server!.requests).toHaveLength(7);
    // Planner and reviewer only look; the coder gets the editing tools.
    expect(toolNames(server!, 0)).toEqual(['list_dir', 'read_file', 'search']);
    expect(toolNames(server!, 1)).toEqual([
      'list_dir',
      'read_file',
      'search',
      'edit_file',
      'write_file',
      'delete_file',
      'run_check',
    ]);
    expect(requestText(server!, 1)).toContain('Role: coder');
    expect(requestText(server!, 1)).toContain('Repository map:');
    expect(toolNames(server!, 6)).toEqual(['list_dir', 'read_file', 'search']);
    expect(requestText(server!, 6)).toContain('Role: reviewer');
    expect(requestText(server!, 6)).toContain('+  return title.trim()');
    // The key reached the model API as a credential, and nowhere else.
    expect(JSON.stringify(server!.requests[0]!.headers)).toContain(ANTHROPIC_KEY);
    const pr = await sys!.runtime.localForge!.getPullRequest(repo, op.pullRequest!.number);
    const everything = [
      await sys!.transcript(op.id),
      JSON.stringify(await sys!.runtime.events.list(id)),
      JSON.stringify(await sys!.runtime.store.get(id)),
      pr.body,
    ].join('\n');
    expect(everything).not.toContain(ANTHROPIC_KEY);
    expect(everything).not.toContain(ANTHROPIC_KEY.slice(0, 24));
  });

  it('a /debug the model could not reproduce says so, with its reason, on the PR body and the tracking comment', async () => {
    const { id, repo } = await start('anthropic', [
      aText(JSON.stringify(plan)),
      aTool('edit_file', {
        path: 'src/slugify.js',
        oldText: "  return title.toLowerCase().replace(' ', '-');",
        newText: FIXED_LINE,
      }),
      aText(
        'COULD NOT REPRODUCE: the reported stack names auth.ts, which this repository does not have.\nFixed the slug separator.',
      ),
      aText(JSON.stringify(accept)),
    ]);
    const op = await waitForStatus(sys!, id, ['awaiting_approval', 'failed']);
    expect(op.error).toBeUndefined();
    expect(op.evidence).toMatchObject({
      reproduced: false,
      note: 'the reported stack names auth.ts, which this repository does not have.',
    });
    const wording =
      '**Could not reproduce:** the reported stack names auth.ts, which this repository does not have. Failing before the change: `ignores surrounding and repeated spaces`, `joins every word with a dash`. Passing with it: `ignores surrounding and repeated spaces`, `joins every word with a dash`. Judge the change by its review and checks.';
    const forge = sys!.runtime.localForge!;
    expect((await forge.getPullRequest(repo, op.pullRequest!.number)).body).toContain(`## Evidence\n${wording}`);
    expect(await forge.trackingComment(repo, op.pullRequest!.number)).toContain(wording);
  });

  /** The fixer's closing JSON (seed 000) after repair round `round`; its edit did not make the test pass. */
  const fixReport = (round: number) =>
    JSON.stringify({
      status: 'failed',
      fixes_applied: [
        { file: 'src/slugify.js', line: 3, error_type: 'wrong_separator', description: 'changed line 3' },
      ],
      build_status: 'fail',
      remaining_errors: ['test still fails'],
      attempts: round,
    });

  it('fails after exhausting 3 repair rounds when each repair fails differently (OpenAI chat completions)', async () => {
    const { id, repo } = await start('openai', [
      oText(JSON.stringify(plan)),
      oTool('edit_file', replaceLine3("  return title.toLowerCase().replace(' ', '_');")),
      oText('Used underscores.'),
      oTool('edit_file', replaceLine3("  return title.toLowerCase().split(' ').join('-');")),
      oText(fixReport(1)),
      oTool('edit_file', replaceLine3("  return title.trim().toLowerCase().replace(' ', '-');")),
      oText(fixReport(2)),
      oTool('edit_file', replaceLine3('  return title.toUpperCase();')),
      oText(fixReport(3)),
    ]);
    const op = await waitForStatus(sys!, id, ['failed', 'awaiting_approval']);
    expect(op.status).toBe('failed');
    expect(op.error).toMatch(/^checks failed: checks still failing after 3 repair rounds: test/);
    expect(op.error).toContain('check "test" exited with 1');
    expect(server!.requests).toHaveLength(9);
    // Each repair saw the failing output and the latest version of the file.
    expect(requestText(server!, 3)).toContain('Role: fixer');
    expect(requestText(server!, 3)).toContain('--- FILE REPLACEMENT src/slugify.js ---');
    expect(requestText(server!, 3)).toContain("replace(' ', '_')");
    expect(requestText(server!, 7)).toContain("replace(' ', '-')");
    expect(Object.keys(await sys!.runtime.localForge!.listBranches(repo))).toEqual(['main']);
  });

  it('retries a 429 after retry-after, then fails an operation whose plan is invalid twice', async () => {
    const { id } = await start('openai', [
      json({ error: { message: 'rate limited', type: 'rate_limit_error', code: null } }, 429, { 'retry-after': '1' }),
      oText('I would fix slugify by splitting on spaces.'),
      oText(JSON.stringify({ summary: '', steps: [] })),
    ]);
    const op = await waitForStatus(sys!, id, ['failed', 'awaiting_approval']);
    expect(op.error).toMatch(
      /^invalid plan: the planner's plan was invalid twice: summary: .*steps: needs at least one step/,
    );
    const [first, second, third] = server!.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(950);
    expect(requestText(server!, 2)).toContain('That answer is not valid: the answer contains no JSON object');
    expect(third).toBeDefined();
  });

  it('stops when the turn budget is used and keeps no branch', async () => {
    const { id, repo } = await start(
      'anthropic',
      [
        aText(JSON.stringify(plan)),
        aTool('read_file', { path: 'src/slugify.js' }),
        aTool('list_dir', {}),
        aTool('read_file', { path: 'README.md' }),
      ],
      { MAX_TURNS: '3' },
    );
    const op = await waitForStatus(sys!, id, ['failed', 'awaiting_approval']);
    expect(op.error).toBe('budget exhausted: turn budget used (3 of 3 model calls)');
    expect(server!.requests).toHaveLength(3);
    expect(Object.keys(await sys!.runtime.localForge!.listBranches(repo))).toEqual(['main']);
  });

  it('stops a loop that repeats the same tool call, with a clear reason', async () => {
    const read = () => aTool('read_file', { path: 'src/slugify.js' });
    const { id } = await start('anthropic', [aText(JSON.stringify(plan)), read(), read(), read(), read()]);
    const op = await waitForStatus(sys!, id, ['failed', 'awaiting_approval']);
    expect(op.error).toBe('stuck: the model repeated the same read_file call 3 times in a row');
  });

  it('honours cancel between model calls, within seconds', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slowTurn: Responder = async (req, res) => {
      await gate;
      await aTool('read_file', { path: 'src/slugify.js' })(req, res);
    };
    const { id } = await start('anthropic', [aText(JSON.stringify(plan)), slowTurn, aText('never reached')]);
    await eventually('the second model call has arrived', () => server!.requests.length >= 2, {
      timeoutMs: 20_000,
      intervalMs: 20,
    });
    const cancel = await sys!.request('POST', `/v1/operations/${id}/cancel`, {});
    expect(cancel.status).toBe(200);
    const cancelledAt = Date.now();
    release();
    const op = await waitForStatus(sys!, id, ['cancelled', 'failed', 'awaiting_approval'], 10_000);
    expect(op.status).toBe('cancelled');
    expect(op.error).toBe('cancelled on request');
    expect(Date.now() - cancelledAt).toBeLessThan(5000);
    expect(server!.requests).toHaveLength(2);
  });

  it('text-edit mode: no role gets tool definitions; a response touching a protected path writes nothing; the repair succeeds', async () => {
    const blocks = (...files: [string, string][]) => files.map(([p, c]) => `^^^${p}\n${c}^^^end`).join('\n');
    const { id, repo } = await start(
      'openai',
      [
        oText(JSON.stringify(plan)),
        oText(blocks(['src/slugify.js', FIXED_FILE], ['.gitignore', 'node_modules/\nsecrets/\n'])),
        oText(blocks(['src/slugify.js', FIXED_FILE])),
        oText(JSON.stringify(accept)),
      ],
      { LLM_EDIT_MODE: 'text' },
    );
    const op = await waitForStatus(sys!, id, ['awaiting_approval', 'failed']);
    expect(op.error).toBeUndefined();
    expect(op.filesChanged).toEqual(['src/slugify.js']);
    // Planner, coder, fixer and reviewer alike: a model without tool calling is never offered a tool.
    expect(server!.requests).toHaveLength(4);
    for (const request of server!.requests) expect(request.body).not.toHaveProperty('tools');
    expect(requestText(server!, 0)).toContain('You cannot call tools: plan from the request');
    expect(requestText(server!, 3)).toContain('You cannot call tools: the diff below');
    expect(requestText(server!, 1)).toContain('--- FILE src/slugify.js ---');
    const fixer = requestText(server!, 2);
    expect(fixer).toContain('nothing was written');
    expect(fixer).toContain('(protected)');
    expect(fixer).toContain('(no file changed yet)');
    const diff = await sys!.runtime.localForge!.pullRequestDiff(repo, op.pullRequest!.number);
    expect(diff).not.toContain('.gitignore');
  });
});
